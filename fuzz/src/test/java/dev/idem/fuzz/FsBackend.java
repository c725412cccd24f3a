package dev.idem.fuzz;

import dev.idem.core.store.ObjectStore;
import dev.idem.store.fs.FsObjectStore;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code FsObjectStore} in a fresh directory per scenario. Replica threads and processes open their
 * own store on it with {@link HookedFsOps}; the observer opens a plain one.
 */
final class FsBackend implements Backend {
  /** {@code .tmp-<name>.<16 hex>}, as {@code FsObjectStore}'s class comment documents. */
  private static final Pattern TEMP = Pattern.compile("(.*/)?\\.tmp-[^/]+\\.[0-9a-f]{16}");
  /** Every other file the layout documents: objects, records, evidence, pointers and their locks. */
  private static final Pattern DOCUMENTED = Pattern.compile(
      "[a-z0-9][a-z0-9._-]*/[0-9]+/state-[0-9a-f]{64}"
          + "|_idem/records/[a-z0-9][a-z0-9._-]*/[0-9]+/state-[0-9a-f]{64}![A-Z]+\\.[0-9a-f]{64}\\.[0-9a-f]{16}"
          + "|_idem/evidence/[a-z0-9][a-z0-9._-]*/[0-9]+/state-[0-9a-f]{64}/[0-9a-f]{64}"
          + "|_idem/pointers/[a-z0-9][a-z0-9._-]*/latest(\\.lock)?");

  static final Scenarios.Profile PROFILE = new Scenarios.Profile(HookedFsOps.OPS, HookedFsOps.OPS_FAULT_AFTER,
      List.of(Fate.Fault.IO_ERROR), List.of(Fate.Death.SIGKILL, Fate.Death.SIGTERM, Fate.Death.THREAD_DEATH), 5, 2, 4, 3);

  private final Path base;

  FsBackend() throws IOException {
    base = Files.createTempDirectory("idem-fuzz-fs");
  }

  @Override
  public Kind kind() {
    return Kind.FS;
  }

  static FsObjectStore open(Path root, StepHook hook, DurabilityLog log) throws IOException {
    return FsObjectStore.open(root, FsObjectStore.Options.defaults().withOps(new HookedFsOps(hook, log)));
  }

  /** A replica process's store: the runner's {@link #processArgs} are the root. */
  static ObjectStore openInChild(List<String> args, StepHook hook) throws IOException {
    return open(Path.of(args.get(0)), hook, null);
  }

  @Override
  public Run begin(String namespace) throws IOException {
    Path root = Files.createDirectories(base.resolve(namespace)).toRealPath();
    DurabilityLog log = new DurabilityLog(root);
    return new Run() {
      @Override
      public ObjectStore replicaStore(Replica replica, StepHook hook) throws IOException {
        return open(root, hook, log);
      }

      @Override
      public List<String> protocolViolations(java.util.Set<Thread> excused) {
        return log.violations(excused);
      }

      @Override
      public List<String> processArgs(Replica replica, StepHook parentHook) {
        return List.of(root.toString());
      }

      @Override
      public ObjectStore observer() throws IOException {
        return FsObjectStore.open(root);
      }

      @Override
      public List<String> leftovers() throws IOException {
        List<String> out = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
            String rel = root.relativize(file).toString().replace('\\', '/');
            if (!DOCUMENTED.matcher(rel).matches()) {
              out.add(rel);
            }
            return FileVisitResult.CONTINUE;
          }
        });
        return out;
      }

      @Override
      public boolean documentedTemporary(String leftover) {
        return TEMP.matcher(leftover).matches();
      }

      @Override
      public void close() throws IOException {
        deleteTree(root);
      }
    };
  }

  @Override
  public void close() throws IOException {
    deleteTree(base);
  }

  private static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> s = Files.walk(p)) {
      for (Path x : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(x);
      }
    }
  }
}
