package dev.idem.store.fs;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.publish.AdvanceReport;
import dev.idem.core.publish.PointerAdvancer;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PutOutcome;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The child process of the multi-process and crash tests (run with the test classpath). Talks to the
 * parent by lines: it prints what it did, and waits for {@code GO} on stdin where the parent must
 * release several children at once. In every mode it ends at once ({@code halt}, exit {@value
 * #PARENT_GONE}) when its stdin reaches end of file: the parent closed the pipe or died, however it
 * died (a test JVM that a mutation run ended for a timeout runs no cleanup). A child paused at a
 * filesystem call or holding a lock would otherwise outlive its parent with the lock held, and make
 * whoever runs next wait on it. Modes:
 *
 * <ul>
 *   <li>{@code race ROOT WRITER ROUNDS same|own SEED}: per round, publish one key (everyone the same
 *       bytes, or each its own) and advance the pointer to a generation chosen at random so far;
 *   <li>{@code loop ROOT WRITER SEED}: publish and advance forever, printing progress (to be killed);
 *   <li>{@code hold-lock ROOT PIPELINE}: take the pipeline's pointer lock and keep it (to be killed);
 *   <li>{@code pause ROOT put|cas INDEX}: run one scenario of {@link CrashScenario} with the
 *       INDEX-th filesystem call blocking forever after printing {@code PAUSED} (to be killed there).
 * </ul>
 */
public final class StoreWorker {
  /** The exit code of a child whose stdin ended: its parent is gone. */
  static final int PARENT_GONE = 86;
  private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);
  /** The parent's lines, read by one thread for the whole life of the process. */
  private static final BlockingQueue<String> FROM_PARENT = new LinkedBlockingQueue<>();

  private StoreWorker() {}

  public static void main(String[] args) throws Exception {
    Thread reader = new Thread(StoreWorker::readParent, "parent-pipe");
    reader.setDaemon(true);
    reader.start();
    switch (args[0]) {
      case "race" -> race(Path.of(args[1]), args[2], Integer.parseInt(args[3]), args[4].equals("same"), Long.parseLong(args[5]));
      case "loop" -> loop(Path.of(args[1]), args[2], Long.parseLong(args[3]));
      case "hold-lock" -> holdLock(Path.of(args[1]), args[2]);
      case "pause" -> pause(Path.of(args[1]), args[2], Integer.parseInt(args[3]));
      default -> throw new IllegalArgumentException("unknown mode " + Arrays.toString(args));
    }
  }

  static String key(String pipeline, long windowStart, int schema) {
    return RunSpec.of(pipeline, new Window(windowStart, 60), schema).outputKey().toString();
  }

  /**
   * Deterministic content for a key and a variant: a header line naming both, then filler derived from
   * it, so a checker can tell a whole object from a partial one by regenerating it from its header.
   */
  static byte[] content(String key, String variant, int size) {
    String header = "key=" + key + " variant=" + variant + " size=" + size + "\n";
    byte[] out = new byte[Math.max(size, header.length())];
    byte[] h = header.getBytes(StandardCharsets.UTF_8);
    System.arraycopy(h, 0, out, 0, h.length);
    Random r = new Random(header.hashCode());
    for (int i = h.length; i < out.length; i++) {
      out[i] = (byte) ('a' + r.nextInt(26));
    }
    return out;
  }

  /** Regenerates an object from its header; {@code null} if the header is not one of ours. */
  static byte[] expectedFromHeader(byte[] object) {
    String text = new String(object, 0, Math.min(object.length, 400), StandardCharsets.UTF_8);
    int nl = text.indexOf('\n');
    if (nl < 0 || !text.startsWith("key=")) {
      return null;
    }
    String[] f = text.substring(0, nl).split(" ");
    return content(f[0].substring(4), f[1].substring(8), Integer.parseInt(f[2].substring(5)));
  }

  /** Hands the parent's lines on; at end of file (or a failed read) ends this process at once. */
  private static void readParent() {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      for (String line; (line = in.readLine()) != null; ) {
        FROM_PARENT.add(line);
      }
    } catch (IOException e) {
      // the pipe broke: the parent is gone just the same
    }
    Runtime.getRuntime().halt(PARENT_GONE);
  }

  private static void awaitGo() throws InterruptedException {
    OUT.println("READY");
    String line = FROM_PARENT.take();
    if (!"GO".equals(line)) {
      throw new IllegalStateException("expected GO, got " + line);
    }
  }

  private static void race(Path root, String writer, int rounds, boolean same, long seed)
      throws IOException, InterruptedException {
    FsObjectStore store = FsObjectStore.open(root);
    PointerAdvancer advancer = new PointerAdvancer(store, 10_000, 1);
    Random random = new Random(seed);
    awaitGo();
    for (int r = 0; r < rounds; r++) {
      String k = key("race", 60L * (r + 1), 1);
      byte[] bytes = content(k, same ? "canonical" : writer, 20_000);
      PutOutcome o = store.putIfAbsent(k, Payload.ofBytes(bytes), writer);
      OUT.println("PUT " + r + " " + o.status() + " " + o.attemptSha256() + " " + o.stored().sha256() + " "
          + (o.evidenceKey() == null ? "-" : o.evidenceKey()));
      int target = random.nextInt(r + 1);
      Pointer p = Pointer.to(store.stat(key("race", 60L * (target + 1), 1)).orElseThrow(), 60, 1, writer, Instant.now());
      AdvanceReport a = advancer.advance(p);
      OUT.println("ADV " + r + " " + a.status() + " " + p.windowStart() + " " + p.schemaVersion());
    }
    OUT.println("DONE");
  }

  private static void loop(Path root, String writer, long seed) throws IOException {
    FsObjectStore store = FsObjectStore.open(root);
    PointerAdvancer advancer = new PointerAdvancer(store, 10_000, 1);
    Random random = new Random(seed);
    for (long n = 0; ; n++) {
      long window = 60L * (1 + random.nextInt(8));
      int schema = 1 + random.nextInt(2);
      String k = key("loop", window, schema);
      String variant = random.nextInt(4) == 0 ? writer : "canonical";
      PutOutcome o = store.putIfAbsent(k, Payload.ofBytes(content(k, variant, 150_000)), writer);
      advancer.advance(Pointer.to(o.stored(), 60, schema, writer, Instant.now()));
      OUT.println("PROGRESS " + n + " " + o.status());
    }
  }

  private static void holdLock(Path root, String pipeline) throws Exception {
    Path dir = root.resolve("_idem/pointers").resolve(pipeline);
    java.nio.file.Files.createDirectories(dir);
    try (InterProcessLock lock = InterProcessLock.acquire(FsOps.real(), dir.resolve("latest.lock"), Duration.ofSeconds(30))) {
      OUT.println(lock == null ? "TIMEOUT" : "LOCKED");
      new CountDownLatch(1).await(); // hold until killed, or until stdin ends (readParent halts)
    }
  }

  private static void pause(Path root, String scenario, int index) throws IOException {
    PausingOps ops = new PausingOps(index, OUT);
    FsObjectStore store = FsObjectStore.open(root, FsObjectStore.Options.defaults().withOps(ops));
    CrashScenario.run(store, scenario);
    OUT.println("DONE");
  }
}
