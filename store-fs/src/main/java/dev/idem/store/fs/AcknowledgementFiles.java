package dev.idem.store.fs;

import dev.idem.core.Names;
import dev.idem.core.store.Acknowledgement;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The operators' acknowledgements of divergent keys in a filesystem store ({@link
 * FsObjectStore#acknowledge}, {@link FsObjectStore#acknowledgements}): one file per acknowledgement,
 * {@code _idem/acks/<key>/ack.<16 hex>}, holding its {@link Acknowledgement} document, beside nothing
 * else.
 *
 * <h2>Write, step by step</h2>
 *
 * <ol>
 *   <li>Create {@code _idem/acks/<key>/} one level at a time (links refused, each new level's parent
 *       fsynced, as a publish does).
 *   <li>Write the document into a {@code .tmp-ack.<random>} file there ({@code O_EXCL}) and force it.
 *   <li>Link it to {@code ack.<random>} with {@code link(2)}, which never replaces a file (a name drawn
 *       twice is drawn again), as the store marker is created; fsync the directory; delete the
 *       temporary name.
 * </ol>
 *
 * A reader sees a whole document or none: the final name appears only by the link, after the force.
 * Nothing changes or deletes an acknowledgement (gc leaves them: they are the audit trail of a
 * divergence whose evidence gc keeps too). A failure leaves no acknowledgement, or a whole one that a
 * power loss may take away before the directory fsync, and at most a {@code .tmp-} file that {@link
 * FsObjectStore#sweep} removes.
 *
 * <h2>Read</h2>
 *
 * Walk {@code _idem/acks/} from the deepest directory the prefix names, read every {@code ack.*} file
 * (a document is at most a few KiB, read bounded), and order them by key, then time. A file that is not
 * a document idem wrote is an error naming it ({@link Acknowledgement.MalformedAcknowledgementException}):
 * never taken for an acknowledgement, never skipped in silence.
 */
final class AcknowledgementFiles {
  static final String DIR = "acks";
  private static final String NAME_PREFIX = "ack.";
  private static final int MAX_DOCUMENT = 128 * 1024;
  private static final int ATTEMPTS = 5;

  private final Path root;
  private final ContainedFs fs;
  private final FsOps ops;

  AcknowledgementFiles(Layout layout, ContainedFs fs, FsOps ops) {
    this.root = layout.internalDir().resolve(DIR);
    this.fs = fs;
    this.ops = ops;
  }

  void write(Acknowledgement ack) throws IOException {
    Path dir = dirOf(ack.key());
    fs.ensureDirectory(dir);
    for (int attempt = 1; ; attempt++) {
      try (TempFile temp = TempFile.create(ops, dir, "ack")) {
        temp.write(ByteBuffer.wrap(ack.toBytes()));
        temp.forceAndClose();
        Path target = dir.resolve(NAME_PREFIX + TempFile.randomHex());
        fs.requireNoLinks(target);
        try {
          ops.createLink(target, temp.path());
        } catch (FileAlreadyExistsException drawnTwice) {
          if (attempt == ATTEMPTS) {
            throw drawnTwice;
          }
          continue;
        }
      }
      fs.sync(dir, "recorded the acknowledgement of " + ack.key() + " but could not make it durable");
      return;
    }
  }

  List<Acknowledgement> read(String prefix) throws IOException {
    List<Acknowledgement> out = new ArrayList<>();
    int slash = prefix.lastIndexOf('/');
    String base = slash < 0 ? "" : prefix.substring(0, slash);
    Path start;
    try {
      start = base.isEmpty() ? root : dirOf(base);
    } catch (IllegalArgumentException noSuchKeyDirectory) {
      return out; // a prefix no key can start with holds no acknowledgement
    }
    walk(start, base, prefix, out);
    out.sort(Comparator.comparing(Acknowledgement::key).thenComparing(Acknowledgement::at));
    return out;
  }

  private void walk(Path dir, String key, String prefix, List<Acknowledgement> out) throws IOException {
    DirectoryStream<Path> listing = fs.list(dir);
    if (listing == null) {
      return;
    }
    List<Path> children = new ArrayList<>();
    try (DirectoryStream<Path> entries = listing) {
      entries.forEach(children::add);
    }
    for (Path child : children) {
      BasicFileAttributes a = fs.entry(child);
      String name = child.getFileName().toString();
      if (a == null || name.startsWith(KeyWalker.TEMP_PREFIX)) {
        continue;
      }
      if (a.isDirectory()) {
        walk(child, key.isEmpty() ? name : key + "/" + name, prefix, out);
      } else if (a.isRegularFile() && name.startsWith(NAME_PREFIX) && !key.isEmpty() && key.startsWith(prefix)) {
        out.add(readOne(child, key));
      }
    }
  }

  private Acknowledgement readOne(Path file, String key) throws IOException {
    InputStream opened = fs.openChecked(file);
    if (opened == null) {
      throw new Acknowledgement.MalformedAcknowledgementException(file.toString(), "vanished while it was read");
    }
    byte[] bytes;
    try (InputStream in = opened) {
      bytes = in.readNBytes(MAX_DOCUMENT + 1);
    }
    return Acknowledgement.parse(bytes, file.toString(), key);
  }

  /** {@code _idem/acks/<key>}, strictly under the acknowledgements' tree. */
  private Path dirOf(String key) {
    Names.requireSafeKey(key);
    Path p = root.resolve(key).normalize();
    if (!p.startsWith(root) || p.equals(root)) {
      throw new IllegalArgumentException("key \"" + key + "\" resolves outside " + root);
    }
    return p;
  }
}
