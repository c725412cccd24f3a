package dev.idem.fuzz;

import dev.idem.store.fs.ForwardingOps;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The filesystem backend's seam: the real filesystem ({@link ForwardingOps}) with a {@link StepHook}
 * around every call, the way Okio's {@code ForwardingFileSystem} is used to make one call fail.
 *
 * <p>Each call is named by what it works on, {@code fsyncDirectory(object dir)} rather than the
 * fourth {@code fsyncDirectory}, so that a step names a point in the protocol (the sync after the
 * link) whatever number of directories the publish happened to create first, and the story says so.
 */
final class HookedFsOps extends ForwardingOps {
  /** The operations a step may name. */
  static final List<String> OPS = List.of(
      "createDirectory", "fsyncDirectory(parent)",
      "createNew(object temp)", "write(object temp)", "force(object temp)", "createLink(object)",
      "fsyncDirectory(object dir)", "createNew(record)", "write(record)", "force(record)", "fsyncDirectory(record dir)",
      "createLink(evidence)", "fsyncDirectory(evidence dir)", "deleteIfExists(temp)",
      "openLockFile(publish lock)", "tryLock(publish lock)",
      "openLockFile(pointer lock)", "tryLock(pointer lock)", "force(object)", "createNew(pointer temp)",
      "write(pointer temp)", "force(pointer temp)", "atomicMove(pointer)", "fsyncDirectory(pointer dir)");
  /**
   * The claim files' operations ({@code ClaimFiles}): named apart, so that a step of the publish above
   * names the same call it did before claims were written beside it, and drawn only by the claim
   * scenarios ({@link Scenarios#claimScenarios}).
   */
  static final List<String> CLAIM_OPS = List.of("createDirectory(claims)", "createNew(claim temp)", "write(claim temp)",
      "createLink(claim)", "deleteIfExists(claim)");
  /** Where a fault after the call is a realistic failure: the bytes or sync may or may not have landed. */
  static final List<String> OPS_FAULT_AFTER = List.of("write(object temp)", "force(object temp)",
      "fsyncDirectory(object dir)", "write(record)", "force(record)", "fsyncDirectory(record dir)",
      "fsyncDirectory(evidence dir)", "force(object)", "force(pointer temp)",
      "fsyncDirectory(pointer dir)");

  private final ForwardingOps d = new ForwardingOps();
  private final StepHook hook;
  private final DurabilityLog log;
  private final Map<FileChannel, String> kinds = Collections.synchronizedMap(new IdentityHashMap<>());
  private final FsBreakage breakage;
  /** Set by a skipped object force: the object directory's fsync that follows it is skipped too. */
  private final ThreadLocal<Boolean> skipObjectDirSync = ThreadLocal.withInitial(() -> false);

  /** @param log where durability-relevant calls are recorded, or {@code null} (replica processes) */
  HookedFsOps(StepHook hook, DurabilityLog log) {
    this(hook, log, FsBreakage.NONE);
  }

  HookedFsOps(StepHook hook, DurabilityLog log, FsBreakage breakage) {
    this.hook = hook;
    this.log = log;
    this.breakage = breakage;
  }

  @FunctionalInterface
  private interface Call<T> {
    T run() throws IOException;
  }

  /** {@code done} records a call that happened, before the hook may fail it after the fact. */
  private <T> T around(String op, Call<T> call, Consumer<T> done) throws IOException {
    hook.at(op, false);
    T result = call.run();
    done.accept(result);
    hook.at(op, true);
    return result;
  }

  private <T> T around(String op, Call<T> call) throws IOException {
    return around(op, call, r -> { });
  }

  /** Claim files ({@code _idem/claims/...}) are steps of their own, apart from the publish's: see {@link #CLAIM_OPS}. */
  private static boolean underClaims(Path p) {
    String s = p.toString().replace('\\', '/');
    return s.contains("/_idem/claims/") || s.endsWith("/_idem/claims");
  }

  private static String newFileKind(Path file) {
    if (file.toString().replace('\\', '/').contains("/_idem/records/")) {
      return "record";
    }
    if (underClaims(file)) {
      return "claim temp";
    }
    return file.getFileName().toString().startsWith(".tmp-latest") ? "pointer temp" : "object temp";
  }

  private String kind(FileChannel ch) {
    return kinds.getOrDefault(ch, "object");
  }

  private void opened(FileChannel ch, String kind, Path file) {
    kinds.put(ch, kind);
    if (log != null) {
      log.opened(ch, file);
    }
  }

  @Override public FileChannel createNew(Path file) throws IOException {
    String k = newFileKind(file);
    if (breakage == FsBreakage.NO_DIVERGENCE_MARKER && file.getFileName().toString().contains("!DIVERGENT.")) {
      return around("createNew(" + k + ")", HookedFsOps::nowhere, ch -> kinds.put(ch, k));
    }
    return around("createNew(" + k + ")", () -> d.createNew(file), ch -> {
      opened(ch, k, file);
      if (log != null && k.equals("record")) {
        log.record("createRecord", file, null);
      }
    });
  }

  /** A channel on a file that is gone already: what is written to it is kept nowhere. */
  private static FileChannel nowhere() throws IOException {
    Path scratch = Files.createTempFile("idem-fuzz-dropped", ".record");
    FileChannel ch = FileChannel.open(scratch, StandardOpenOption.WRITE);
    Files.delete(scratch);
    return ch;
  }

  @Override public FileChannel openLockFile(Path file) throws IOException {
    String k = file.getFileName().toString().startsWith(".tmp-publish") ? "publish lock" : "pointer lock";
    return around("openLockFile(" + k + ")", () -> d.openLockFile(file), ch -> opened(ch, k, file));
  }

  // Reads change nothing a crash or a lost sync could reveal: forwarded without a step.
  @Override public BasicFileAttributes readAttributes(Path path) throws IOException {
    return d.readAttributes(path);
  }

  @Override public InputStream newInputStream(Path file) throws IOException {
    InputStream in = d.newInputStream(file);
    // Logged (without a step): reading a CREATED record is what excuses an IDENTICAL attempt's fsync.
    if (log != null && file.getFileName().toString().contains("!CREATED.")) {
      log.record("readCreatedRecord", file, null);
    }
    return in;
  }

  @Override public DirectoryStream<Path> newDirectoryStream(Path dir) throws IOException {
    return d.newDirectoryStream(dir);
  }

  @Override public void write(FileChannel channel, ByteBuffer src) throws IOException {
    around("write(" + kind(channel) + ")", () -> {
      d.write(channel, src);
      return null;
    });
  }

  @Override public void force(FileChannel channel) throws IOException {
    // The only force of a channel this seam did not open is the pointer CAS's force of the object it
    // is about to name (makeDurable); the breakage drops it and the directory fsync right after it.
    if (breakage == FsBreakage.NO_OBJECT_SYNC_BEFORE_POINTER && !kinds.containsKey(channel)) {
      skipObjectDirSync.set(true);
      return;
    }
    around("force(" + kind(channel) + ")", () -> {
      d.force(channel);
      return null;
    }, r -> {
      if (log != null) {
        log.forced(channel);
      }
    });
  }

  @Override public void createLink(Path link, Path existing) throws IOException {
    boolean evidence = link.toString().contains("/_idem/");
    around(underClaims(link) ? "createLink(claim)" : evidence ? "createLink(evidence)" : "createLink(object)", () -> {
      d.createLink(link, existing);
      return null;
    }, r -> {
      if (log != null) {
        log.record("createLink", link, existing);
      }
    });
  }

  @Override public void atomicMove(Path source, Path target) throws IOException {
    if (log != null) {
      log.pointerMoving(source, target);
    }
    around("atomicMove(pointer)", () -> {
      d.atomicMove(source, target);
      return null;
    }, r -> {
      if (log != null) {
        log.record("atomicMove", source, target);
      }
    });
  }

  @Override public void fsyncDirectory(Path dir) throws IOException {
    String s = dir.toString().replace('\\', '/');
    String kind = underClaims(dir) ? "claims dir" : s.contains("/_idem/pointers/") ? "pointer dir"
        : s.matches(".*/_idem/records/[a-z0-9][a-z0-9._-]*/[0-9]+") ? "record dir"
        : s.matches(".*/_idem/evidence/[a-z0-9][a-z0-9._-]*/[0-9]+/state-[0-9a-f]{64}") ? "evidence dir"
        : s.matches(".*/[a-z0-9][a-z0-9._-]*/[0-9]+") && !s.contains("/_idem/") ? "object dir" : "parent";
    if (kind.equals("object dir") && skipObjectDirSync.get()) {
      skipObjectDirSync.set(false);
      return;
    }
    around("fsyncDirectory(" + kind + ")", () -> {
      d.fsyncDirectory(dir);
      return null;
    }, r -> {
      if (log != null) {
        log.record("fsyncDirectory", dir, null);
      }
    });
  }

  @Override public void createDirectory(Path dir) throws IOException {
    around(underClaims(dir) ? "createDirectory(claims)" : "createDirectory", () -> {
      d.createDirectory(dir);
      return null;
    });
  }

  /**
   * A key's publish lock: an economy, so not a durability event for the log. "After" this step means
   * holding the lock: a try that did not get it reaches only the "before" step.
   */
  @Override public FileLock tryLock(FileChannel channel, long position) throws IOException {
    hook.at("tryLock(publish lock)", false);
    FileLock lock = d.tryLock(channel, position);
    if (lock != null) {
      hook.at("tryLock(publish lock)", true);
    }
    return lock;
  }

  @Override public FileLock tryLock(FileChannel channel) throws IOException {
    hook.at("tryLock(pointer lock)", false);
    FileLock lock = d.tryLock(channel);
    if (lock != null) {
      if (log != null) {
        log.record("tryLock", null, null);
      }
      hook.at("tryLock(pointer lock)", true);
    }
    return lock;
  }

  @Override public boolean deleteIfExists(Path file) throws IOException {
    return around(underClaims(file) ? "deleteIfExists(claim)" : "deleteIfExists(temp)", () -> d.deleteIfExists(file));
  }
}
