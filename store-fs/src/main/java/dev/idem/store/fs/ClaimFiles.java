package dev.idem.store.fs;

import dev.idem.core.Names;
import dev.idem.core.store.Claim;
import dev.idem.core.store.Claims;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The advisory claims of a filesystem store ({@link FsObjectStore#claim} and the rest of {@link
 * Claims}): one file per claim entry, {@code _idem/claims/<key>/claim.<16 hex>}, holding its {@link
 * Claim} document. Claims are advice (see {@link Claims}): a document is whole before it is linked, so
 * no reader sees it partial; nothing is forced (neither the document nor a directory), since a claim
 * lost or torn by a power loss is read as absent and costs duplicated work only, and a claim is
 * written on every renewal.
 *
 * <h2>Write (a claim, or a renewal), step by step</h2>
 *
 * <ol>
 *   <li>Create {@code _idem/claims/<key>/} one level at a time (links refused, as for every directory
 *       of the store).
 *   <li>Write the document into a {@code .tmp-claim.<random>} file there ({@code O_EXCL}).
 *   <li>Link it to {@code claim.<random>} with {@code link(2)}, which never replaces a file (a name
 *       drawn twice is drawn again); delete the temporary name.
 * </ol>
 *
 * A reader sees a whole document or none. A renewal writes a new entry this way, then deletes the one
 * it renews: every entry is created once and never changed, so its modification time is the time it
 * was written, stamped by the filesystem. A failure leaves no new entry, or a whole one, and at most a
 * {@code .tmp-} file that {@link FsObjectStore#sweep} removes.
 *
 * <h2>Age, and the clock it is judged by</h2>
 *
 * An entry's age is this host's clock now minus the file's modification time, less a skew allowance
 * of {@value #SKEW_SECONDS} s, and never below zero. On a local disk both readings come from one
 * clock. On a shared mount the modification time is stamped by the file server (or by the writing
 * host), so a clock that runs behind this host's by up to the allowance does not make a live claim
 * look stale early; a larger skew does, and costs duplicated work only. A ttl should exceed the renewal
 * interval by more than the allowance.
 *
 * <h2>Read</h2>
 *
 * List {@code _idem/claims/<key>/} and read every {@code claim.*} file (at most a few KiB, read
 * bounded). An entry that vanished, cannot be read, is a link, or is not a document idem wrote for this
 * key is treated as absent, never as a claim and never as an error: an unreadable claim must not stop a
 * run. Only a failure to list the directory itself is thrown.
 */
final class ClaimFiles {
  static final String DIR = "claims";
  /** The skew allowance between the host judging a claim's age and the clock that stamped it. */
  static final long SKEW_SECONDS = 2;
  private static final Duration SKEW = Duration.ofSeconds(SKEW_SECONDS);
  private static final String NAME_PREFIX = "claim.";
  private static final Pattern ID = Pattern.compile("claim\\.[0-9a-f]{16}");
  private static final int ATTEMPTS = 5;
  /** The id of a claim not yet written: {@link #write} names its entry. */
  private static final String UNWRITTEN = "unwritten";

  private final Path root;
  private final ContainedFs fs;
  private final FsOps ops;

  ClaimFiles(Layout layout, ContainedFs fs, FsOps ops) {
    this.root = layout.internalDir().resolve(DIR);
    this.fs = fs;
    this.ops = ops;
  }

  /** An entry as read: its claim, and when it was written, for ordering claims written together. */
  private record Entry(Claim claim, FileTime modified) {}

  /** See {@link Claims#claim}. */
  Claims.Claimed claim(String key, String writer, Duration expected, Duration ttl) throws IOException {
    Names.requireWriterId(writer);
    Objects.requireNonNull(ttl, "ttl");
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("claim ttl must be > 0, was " + ttl);
    }
    List<Entry> before = entries(key);
    Optional<Entry> other = oldestFresh(before, ttl);
    if (other.isPresent()) {
      return new Claims.Claimed(Claims.Result.TAKEN, other.get().claim());
    }
    Claim mine = write(new Claim(key, UNWRITTEN, writer, Instant.now(), expected, Duration.ZERO));
    // Writers that claimed together each see the others' entries now: the oldest fresh one holds.
    Entry first = oldestFresh(entries(key), ttl).orElse(null);
    if (first == null || first.claim().id().equals(mine.id())) {
      Claim stale = before.stream().max(Comparator.comparing(Entry::modified)).map(Entry::claim).orElse(null);
      return new Claims.Claimed(Claims.Result.HELD, mine, stale);
    }
    release(mine);
    return new Claims.Claimed(Claims.Result.TAKEN, first.claim());
  }

  /** See {@link Claims#renewClaim}: a new entry, then the old one deleted. */
  Claim renew(Claim held) throws IOException {
    Claim renewed = write(held);
    release(held);
    return renewed;
  }

  /** See {@link Claims#releaseClaim}. */
  boolean release(Claim claim) throws IOException {
    Path file = fileOf(claim);
    return fs.regularFile(file) != null && ops.deleteIfExists(file);
  }

  /** See {@link Claims#readClaim}: the freshest entry, by modification time (ties: the greater id). */
  Optional<Claim> read(String key) throws IOException {
    return entries(key).stream()
        .max(Comparator.comparing(Entry::modified).thenComparing(e -> e.claim().id()))
        .map(Entry::claim);
  }

  /** See {@link Claims#listClaims}. */
  List<Claim> list(String prefix) throws IOException {
    Objects.requireNonNull(prefix, "prefix");
    List<Entry> out = new ArrayList<>();
    int slash = prefix.lastIndexOf('/');
    String base = slash < 0 ? "" : prefix.substring(0, slash);
    Path start;
    try {
      start = base.isEmpty() ? root : dirOf(base);
    } catch (IllegalArgumentException noSuchKeyDirectory) {
      return List.of(); // a prefix no key can start with holds no claim
    }
    walk(start, base, prefix, out);
    out.sort(Comparator.comparing((Entry e) -> e.claim().key())
        .thenComparing(Entry::modified, Comparator.reverseOrder())
        .thenComparing(e -> e.claim().id(), Comparator.reverseOrder()));
    return out.stream().map(Entry::claim).toList();
  }

  private void walk(Path dir, String key, String prefix, List<Entry> out) throws IOException {
    List<Path> children = children(dir);
    for (Path child : children) {
      String name = child.getFileName().toString();
      BasicFileAttributes a = name.startsWith(KeyWalker.TEMP_PREFIX) ? null : entryOrNone(child);
      if (a == null) {
        continue;
      }
      if (a.isDirectory()) {
        walk(child, key.isEmpty() ? name : key + "/" + name, prefix, out);
      } else if (!key.isEmpty() && key.startsWith(prefix)) {
        readOne(child, a, key).ifPresent(out::add);
      }
    }
  }

  /** The readable entries of {@code key}. */
  private List<Entry> entries(String key) throws IOException {
    List<Entry> out = new ArrayList<>();
    for (Path child : children(dirOf(key))) {
      BasicFileAttributes a = entryOrNone(child);
      if (a != null) {
        readOne(child, a, key).ifPresent(out::add);
      }
    }
    return out;
  }

  private List<Path> children(Path dir) throws IOException {
    DirectoryStream<Path> listing = fs.list(dir);
    List<Path> children = new ArrayList<>();
    if (listing != null) {
      try (DirectoryStream<Path> entries = listing) {
        entries.forEach(children::add);
      }
    }
    return children;
  }

  /** The attributes of a listed entry, or {@code null} when it is gone or a link (a link is no claim). */
  private BasicFileAttributes entryOrNone(Path child) throws IOException {
    try {
      return fs.entry(child);
    } catch (LinkRefusedException link) {
      return null;
    }
  }

  /** The claim in {@code file}, or empty when it is not one: unreadable advice is no advice. */
  private Optional<Entry> readOne(Path file, BasicFileAttributes a, String key) {
    String name = file.getFileName().toString();
    if (!a.isRegularFile() || !ID.matcher(name).matches()) {
      return Optional.empty();
    }
    try (InputStream in = fs.openChecked(file)) {
      if (in == null) {
        return Optional.empty();
      }
      byte[] bytes = in.readNBytes(Claim.MAX_DOCUMENT_BYTES + 1);
      return Optional.of(new Entry(Claim.parse(bytes, file.toString(), key, name, age(a.lastModifiedTime())),
          a.lastModifiedTime()));
    } catch (IOException unreadable) {
      return Optional.empty();
    }
  }

  /** Now minus {@code modified}, less the skew allowance, never negative. */
  private static Duration age(FileTime modified) {
    Duration age = Duration.between(modified.toInstant(), Instant.now()).minus(SKEW);
    return age.isNegative() ? Duration.ZERO : age;
  }

  private static Optional<Entry> oldestFresh(List<Entry> entries, Duration ttl) {
    return entries.stream()
        .filter(e -> e.claim().isFresh(ttl))
        .min(Comparator.comparing(Entry::modified).thenComparing(e -> e.claim().id()));
  }

  /** Writes {@code claim}'s document as a new entry (the steps are in the class comment). */
  private Claim write(Claim claim) throws IOException {
    Path dir = dirOf(claim.key());
    fs.ensureDirectoryUnsynced(dir);
    for (int attempt = 1; ; attempt++) {
      try (TempFile temp = TempFile.create(ops, dir, "claim")) {
        temp.write(ByteBuffer.wrap(claim.toBytes()));
        temp.closeUnforced();
        String id = NAME_PREFIX + TempFile.randomHex();
        Path target = dir.resolve(id);
        fs.requireNoLinks(target);
        try {
          ops.createLink(target, temp.path());
        } catch (FileAlreadyExistsException drawnTwice) {
          if (attempt == ATTEMPTS) {
            throw drawnTwice;
          }
          continue;
        }
        return claim.renewedAs(id);
      }
    }
  }

  /** The entry of {@code claim}; its id must be a name this class gives. */
  private Path fileOf(Claim claim) {
    if (!ID.matcher(claim.id()).matches()) {
      throw new IllegalArgumentException("not a claim entry of a filesystem store: " + claim.id());
    }
    return dirOf(claim.key()).resolve(claim.id());
  }

  /** {@code _idem/claims/<key>}, strictly under the claims' tree. */
  private Path dirOf(String key) {
    Names.requireSafeKey(key);
    Path p = root.resolve(key).normalize();
    if (!p.startsWith(root) || p.equals(root)) {
      throw new IllegalArgumentException("key \"" + key + "\" resolves outside " + root);
    }
    return p;
  }
}
