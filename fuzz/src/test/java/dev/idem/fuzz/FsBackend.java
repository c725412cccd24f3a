package dev.idem.fuzz;

import dev.idem.core.store.Claim;
import dev.idem.core.store.ObjectStore;
import dev.idem.store.fs.FsObjectStore;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
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
  /**
   * Every other file the layout documents: objects, records and the publish locks, evidence, pointers and
   * their locks, claim entries.
   */
  private static final Pattern DOCUMENTED = Pattern.compile(
      "[a-z0-9][a-z0-9._-]*/[0-9]+/state-[0-9a-f]{64}"
          + "|_idem/claims/[a-z0-9][a-z0-9._-]*/[0-9]+/state-[0-9a-f]{64}/claim\\.[0-9a-f]{16}"
          + "|_idem/records/[a-z0-9][a-z0-9._-]*/[0-9]+/state-[0-9a-f]{64}![A-Z]+\\.[0-9a-f]{64}\\.[0-9a-f]{16}"
          + "|_idem/records/[a-z0-9][a-z0-9._-]*/[0-9]+/\\.tmp-publish\\.lock"
          + "|_idem/evidence/[a-z0-9][a-z0-9._-]*/[0-9]+/state-[0-9a-f]{64}/[0-9a-f]{64}"
          + "|_idem/pointers/[a-z0-9][a-z0-9._-]*/latest(\\.lock)?");

  static final Scenarios.Profile PROFILE = new Scenarios.Profile(HookedFsOps.OPS, HookedFsOps.OPS_FAULT_AFTER,
      List.of(Fate.Fault.IO_ERROR), List.of(Fate.Death.SIGKILL, Fate.Death.SIGTERM, Fate.Death.THREAD_DEATH), 5, 2, 4, 3,
      List.of(new Step("fsyncDirectory(object dir)", false, 1), new Step("createNew(record)", false, 1),
          new Step("atomicMove(pointer)", false, 1)),
      List.of(new Step("createLink(evidence)", false, 1), new Step("fsyncDirectory(evidence dir)", false, 1)),
      new Step("tryLock(pointer lock)", true, 1),
      List.of(Scenario.Hazard.LINK_AT_PIPELINE, Scenario.Hazard.LINK_AT_WINDOW, Scenario.Hazard.LINK_AT_RECORDS),
      Scenarios.SMALL_PAYLOADS);

  private static final String SENTINEL = "sentinel";
  private static final byte[] SENTINEL_BYTES = "outside the store root; idem must never touch this\n".getBytes(
      java.nio.charset.StandardCharsets.US_ASCII);

  private final Path base;
  private final FsBreakage breakage;

  FsBackend() throws IOException {
    this(FsBreakage.NONE);
  }

  /** A backend whose replica threads' stores carry {@code breakage}: how the suite shows what it finds. */
  FsBackend(FsBreakage breakage) throws IOException {
    base = Files.createTempDirectory(baseDir(), "idem-fuzz-fs");
    this.breakage = breakage;
  }

  /**
   * Where the scenarios' stores live: {@code fuzz.fs.dir} when it names a directory (the long session
   * uses {@code /dev/shm}: a scenario is then bound by the protocol, not by the disk's fsync latency;
   * the order of the syncs is checked by {@link DurabilityLog} either way), else the temporary directory.
   */
  static Path baseDir() {
    String dir = System.getProperty("fuzz.fs.dir", "");
    Path p = dir.isBlank() ? null : Path.of(dir);
    return p != null && Files.isDirectory(p) && Files.isWritable(p) ? p : Path.of(System.getProperty("java.io.tmpdir"));
  }

  @Override
  public Kind kind() {
    return Kind.FS;
  }

  static FsObjectStore open(Path root, StepHook hook, DurabilityLog log) throws IOException {
    return new HookedFsOps(hook, log).openStore(root, FsObjectStore.Options.defaults());
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
        return new HookedFsOps(hook, log, breakage).openStore(root, FsObjectStore.Options.defaults());
      }

      private Path link;
      private Path outside;

      @Override
      public void prepare(Scenario s) throws IOException {
        forgeClaimEntries(root, s.replicas().get(0).spec(namespace).outputKey().toString(), s.claims().forgery());
        if (s.hazard() == Scenario.Hazard.NONE) {
          return;
        }
        outside = Files.createDirectories(base.resolve(namespace + "-outside"));
        Files.write(outside.resolve(SENTINEL), SENTINEL_BYTES);
        link = root.resolve(s.hazard().linkPath(namespace));
        Files.createDirectories(link.getParent());
        Files.createSymbolicLink(link, outside);
      }

      @Override
      public List<String> clearHazard() throws IOException {
        if (link == null) {
          return List.of();
        }
        List<String> v = new ArrayList<>();
        try (Stream<Path> s = Files.walk(outside)) {
          for (Path p : s.toList()) {
            if (!p.equals(outside) && !p.equals(outside.resolve(SENTINEL))) {
              v.add("S2: " + outside.relativize(p) + " appeared outside the root, through the link " + root.relativize(link));
            }
          }
        }
        if (!java.util.Arrays.equals(Files.readAllBytes(outside.resolve(SENTINEL)), SENTINEL_BYTES)) {
          v.add("S2: a file outside the root changed through the link " + root.relativize(link));
        }
        if (!Files.isSymbolicLink(link)) {
          v.add("S2: the link " + root.relativize(link) + " was replaced");
        }
        Files.deleteIfExists(link);
        deleteTree(outside);
        return v;
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

  /**
   * Places what {@code forgery} says another writer left on {@code key}, as files in the layout {@code
   * ClaimFiles} documents: an entry stamped an hour ahead or behind, or entries that are no claims.
   */
  static void forgeClaimEntries(Path root, String key, ClaimSetup.Forgery forgery) throws IOException {
    if (forgery != ClaimSetup.Forgery.STAMPED_AHEAD && forgery != ClaimSetup.Forgery.STAMPED_BEHIND
        && forgery != ClaimSetup.Forgery.CORRUPT) {
      return;
    }
    Path dir = Files.createDirectories(root.resolve("_idem/claims").resolve(key));
    byte[] document = new Claim(key, "forged", ClaimSetup.FORGER, Instant.now(), null, Duration.ZERO).toBytes();
    if (forgery != ClaimSetup.Forgery.CORRUPT) {
      Path entry = Files.write(dir.resolve("claim.00000000000000f0"), document);
      Duration hour = Duration.ofHours(1);
      Instant stamp = forgery == ClaimSetup.Forgery.STAMPED_AHEAD ? Instant.now().plus(hour) : Instant.now().minus(hour);
      Files.setLastModifiedTime(entry, FileTime.from(stamp));
      return;
    }
    Files.write(dir.resolve("claim.00000000000000c1"), "not a claim\n".getBytes(StandardCharsets.UTF_8));
    String other = new String(document, StandardCharsets.UTF_8).replace("key=" + key, "key=" + key + "x");
    Files.write(dir.resolve("claim.00000000000000c2"), other.getBytes(StandardCharsets.UTF_8));
    Files.write(dir.resolve("claim.00000000000000c3"), java.util.Arrays.copyOf(document, document.length - 1));
    byte[] oversized = new byte[Claim.MAX_DOCUMENT_BYTES + 10];
    System.arraycopy(document, 0, oversized, 0, document.length);
    java.util.Arrays.fill(oversized, document.length, oversized.length, (byte) '\n');
    Files.write(dir.resolve("claim.00000000000000c4"), oversized);
    // A link to a whole document outside the root (removed with the backend's directory): a link is no claim.
    Path target = Files.write(root.resolveSibling(root.getFileName() + "-claim-target"), document);
    Files.createSymbolicLink(dir.resolve("claim.00000000000000c5"), target);
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
