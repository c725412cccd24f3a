package dev.idem.store.fs;

import dev.idem.core.proof.ProbeResult;
import dev.idem.core.proof.StoreMarker;
import dev.idem.core.proof.StoreProver;
import dev.idem.core.proof.StoreRefusedException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Proves a filesystem store directory before idem writes there: its publish relies on {@code link(2)}
 * refusing an existing name, its durability on fsyncing directories, and its pointer swap on kernel
 * file locks, and a filesystem can lack each (FAT and some FUSE or SMB mounts have no hard links, some
 * NFS mounts no locks).
 *
 * <h2>Probes, in {@code _idem/probe/} (created, with the root, by the probe: the writing path)</h2>
 *
 * <ol>
 *   <li>{@code hard-links}: link a scratch file to a second name, then link it to that name again,
 *       which must fail with "file exists". Required: no-clobber publish.
 *   <li>{@code directory-fsync}: {@code FileChannel.force} on the opened probe directory. Required:
 *       without it a published name may vanish in a power loss (G1), and every publish fails anyway.
 *   <li>{@code file-locks}: an exclusive kernel lock on a scratch file. Required: the pointer swap.
 * </ol>
 *
 * Scratch files are named {@code .tmp-…}, so one left by a killed process is removed by sweep. The
 * marker is written to a temporary file, fsynced, and linked to {@code _idem/store} (create-only: a
 * second creator's link fails), then the directory is fsynced. Reading the marker creates nothing: a
 * missing root stays missing. Every path goes through {@link ContainedFs}, so a symbolic link under the
 * root is refused here as everywhere in the store (S2).
 *
 * <h2>Failure states</h2>
 *
 * An {@link IOException} while probing may leave the root and {@code _idem/probe/} created and a
 * {@code .tmp-} scratch file; never anything at a key. An {@link IOException} creating the marker
 * leaves none or a whole one.
 */
public final class FsStoreProver implements StoreProver {
  private static final int MAX_MARKER_BYTES = 16 * 1024;

  private final Path root;
  private final FsOps ops;
  private final ContainedFs fs;

  private FsStoreProver(Path root, FsOps ops) {
    this.root = root;
    this.ops = ops;
    this.fs = new ContainedFs(root, ops);
  }

  /** The prover of {@code store}'s root, through the same filesystem seam. */
  public static FsStoreProver of(FsObjectStore store) {
    return new FsStoreProver(store.root(), store.options().ops());
  }

  @Override
  public String kind() {
    return "file";
  }

  /** The filesystem store has one pointer protocol: a kernel lock and an atomic rename. */
  @Override
  public String pointerMode() {
    return "lock";
  }

  /** The lock probe takes the lock on this host; replicas on other hosts rely on it being seen there too. */
  @Override
  public List<String> unchecked() {
    return List.of("file-locks across hosts: the probe takes the kernel lock on this host; replicas on other "
        + "hosts sharing the filesystem rely on seeing it too (NFS needs its lock service, lockd or NFSv4), "
        + "which a probe on one host cannot show");
  }

  @Override
  public String markerLocation() {
    return "file:" + markerPath();
  }

  private Path markerPath() {
    return root.resolve(StoreMarker.KEY);
  }

  @Override
  public Optional<StoreMarker> readMarker() throws IOException {
    Path p = markerPath();
    BasicFileAttributes a = fs.attributes(p);
    if (a == null) {
      return Optional.empty();
    }
    if (!a.isRegularFile()) {
      throw new StoreRefusedException("store marker " + markerLocation()
          + " is not a regular file; idem does not write to this store");
    }
    byte[] bytes;
    try (InputStream in = fs.open(p)) {
      if (in == null) {
        return Optional.empty();
      }
      bytes = in.readNBytes(MAX_MARKER_BYTES + 1);
    }
    return Optional.of(StoreMarker.parse(bytes, markerLocation()));
  }

  @Override
  public List<ProbeResult> probe() throws IOException {
    Path dir = root.resolve(StoreMarker.PROBE_PREFIX);
    fs.ensureDirectory(dir);
    String id = TempFile.randomHex();
    List<ProbeResult> results = new ArrayList<>();
    Path second = dir.resolve(TempFile.PREFIX + "probe-link." + id);
    Path lockFile = dir.resolve(TempFile.PREFIX + "probe-lock." + id);
    try (TempFile scratch = TempFile.create(ops, dir, "probe")) {
      scratch.write(ByteBuffer.wrap(new byte[] {'p'}));
      scratch.forceAndClose();
      results.add(hardLinks(scratch.path(), second));
      results.add(directoryFsync(dir));
      results.add(fileLocks(lockFile));
    } finally {
      ops.deleteIfExists(second);
      ops.deleteIfExists(lockFile);
    }
    return results;
  }

  private ProbeResult hardLinks(Path scratch, Path second) {
    String test = "link(2) of a scratch file in _idem/probe/ to a second name, then again to that name";
    String reliance = "idem's no-clobber publish depends on it (a rename would replace an object)";
    try {
      ops.createLink(second, scratch);
    } catch (IOException | UnsupportedOperationException e) {
      return ProbeResult.missing("hard-links", test, true, "cannot make hard links (link(2) said: " + reason(e) + ")",
          reliance);
    }
    try {
      ops.createLink(second, scratch);
      return ProbeResult.missing("hard-links", test, true,
          "replaces an existing name on link(2) (a second link to the same name succeeded)", reliance);
    } catch (FileAlreadyExistsException expected) {
      return ProbeResult.held("hard-links", test, true, "linked, and refused the existing name (EEXIST)", reliance);
    } catch (IOException | UnsupportedOperationException e) {
      return ProbeResult.missing("hard-links", test, true,
          "fails a link to an existing name with something other than EEXIST (" + reason(e) + ")", reliance);
    }
  }

  private ProbeResult directoryFsync(Path dir) {
    String test = "FileChannel.force on the opened directory _idem/probe/";
    String reliance = "a published object survives a power loss only once its directory is fsynced";
    try {
      ops.fsyncDirectory(dir);
      return ProbeResult.held("directory-fsync", test, true, "synced", reliance);
    } catch (IOException e) {
      return ProbeResult.missing("directory-fsync", test, true, "cannot fsync a directory (" + reason(e) + ")",
          reliance);
    }
  }

  private ProbeResult fileLocks(Path lockFile) {
    String test = "an exclusive kernel lock (fcntl) on a scratch file in _idem/probe/";
    String reliance = "the pointer compare-and-swap depends on it";
    try (FileChannel ch = ops.openLockFile(lockFile)) {
      FileLock lock = ops.tryLock(ch);
      if (lock == null) {
        return ProbeResult.missing("file-locks", test, true,
            "reports a fresh scratch file as locked by another process", reliance);
      }
      lock.release();
      return ProbeResult.held("file-locks", test, true, "locked and released", reliance);
    } catch (IOException e) {
      return ProbeResult.missing("file-locks", test, true, "cannot lock files (" + reason(e) + ")", reliance);
    }
  }

  @Override
  public boolean createMarker(StoreMarker marker) throws IOException {
    Path p = markerPath();
    Path dir = p.getParent();
    fs.ensureDirectory(dir);
    try (TempFile temp = TempFile.create(ops, dir, "store")) {
      temp.write(ByteBuffer.wrap(marker.toBytes()));
      temp.forceAndClose();
      try {
        ops.createLink(p, temp.path());
      } catch (FileAlreadyExistsException another) {
        return false;
      }
    }
    fs.sync(dir, "created the store marker " + p + " but could not make it durable");
    return true;
  }

  /** The root, whether it exists yet, and the filesystem it is (or will be) on. */
  @Override
  public Map<String, String> environment() throws IOException {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("store", "file:" + root);
    boolean exists = Files.isDirectory(root);
    env.put("root", exists ? "exists" : "not created yet (the first writing command creates it)");
    Path existing = root;
    while (existing != null && !Files.exists(existing)) {
      existing = existing.getParent();
    }
    if (existing != null) {
      FileStore fileStore = Files.getFileStore(existing);
      env.put("filesystem", fileStore.type() + " (" + fileStore.name() + ")");
    }
    env.put("pointer_mode", pointerMode());
    return env;
  }

  private static String reason(Exception e) {
    String m = e.getMessage();
    return (m == null || m.isBlank() ? e.getClass().getSimpleName() : m).replaceAll("[\\r\\n]+", " ");
  }
}
