package dev.idem.cli;

import static dev.idem.store.s3.testing.FakeS3Server.stall;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.store.s3.testing.FakeS3Server;
import dev.idem.store.s3.testing.FakeS3Server.Silent;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command's store work ends by its overall deadline, {@code --max-time} (B2): against an S3
 * endpoint that accepts connections and never answers (or answers headers, then stalls), against a
 * credentials endpoint that never answers, and on a filesystem store whose pointer lock another writer
 * never lets go. The exit code and the one line on stderr name the wait that ran out; {@code run} never
 * starts CMD late, and neither CMD's own runtime nor publish's wait for stdin counts. The deadlines
 * against servers are a second or two of real time (nothing can speed up a server that does not
 * answer); without them each command would wait six attempts of the 60 s read timeout, which the
 * preemptive bound cuts off. An hour of CMD or of stdin is let pass on the deadline's ticker instead of
 * waited for.
 */
class DeadlineCommandsTest {
  /** Far below the six minutes a command took without a deadline; far above the deadlines given. */
  private static final Duration BOUND = Duration.ofSeconds(40);
  private static final String SPEC_AT = "1726000030";

  @TempDir
  Path dir;

  private FakeS3Server server;

  @BeforeEach
  void start() throws IOException {
    server = new FakeS3Server().otherwise(r -> new Silent());
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
  }

  private Cli s3() {
    return new Cli().env("AWS_ENDPOINT_URL", server.endpoint().toString()).env("AWS_REGION", "us-east-1")
        .env("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE").env("AWS_SECRET_ACCESS_KEY", "secret")
        .env("AWS_EC2_METADATA_DISABLED", "true").env("HOME", dir.toString());
  }

  private static String[] args(String command, String store, String... extra) {
    List<String> a = new ArrayList<>(List.of(command.split(" ")));
    a.addAll(List.of("--store", store));
    a.addAll(List.of(extra));
    return a.toArray(String[]::new);
  }

  private static String[] spec(String... more) {
    List<String> a = new ArrayList<>(List.of("--pipeline", "p", "--window", "60s", "--at", SPEC_AT, "--schema", "1"));
    a.addAll(List.of(more));
    return a.toArray(String[]::new);
  }

  private static String[] concat(String[] a, String... b) {
    return Stream.concat(Stream.of(a), Stream.of(b)).toArray(String[]::new);
  }

  private static Cli.Result bounded(Cli cli, String... args) {
    return assertTimeoutPreemptively(BOUND, () -> cli.run(args));
  }

  /** One line on stderr, exit 4, naming the deadline that ran out. */
  private static void assertDeadlineExit4(Cli.Result r, String limit) {
    assertEquals(ExitCodes.STORE_UNAVAILABLE, r.code(), r.describe());
    assertEquals(1, r.errLines().length, r.describe());
    assertTrue(r.err().contains("the " + limit + " deadline (--max-time) ran out"), r.describe());
  }

  @Test
  void pointerShow_endpointNeverAnswers_exit4AtTheDeadlineFromTheVariable() {
    Cli.Result r = bounded(s3().env("IDEM_MAX_TIME", "1s"), args("pointer show", "s3://bkt/p", "--pipeline", "p"));

    assertDeadlineExit4(r, "1s");
    assertTrue(r.err().startsWith("idem pointer show: GET bkt/p/_idem/"), r.describe());
    assertTrue(server.requests().size() <= 1, "the request in flight was cut, no retry begun: " + r.describe());
  }

  @Test
  void pointerShow_headersThenStall_exit4AtTheDeadline() {
    server.otherwise(req -> stall("idem-pointer 1\n"));

    Cli.Result r = bounded(s3(), args("pointer show", "s3://bkt/p", "--pipeline", "p", "--max-time", "1s"));

    assertDeadlineExit4(r, "1s");
    assertTrue(r.err().contains("reply body not received"), r.describe());
  }

  @Test
  void get_endpointNeverAnswers_exit4AtTheDeadline() {
    Cli.Result r = bounded(s3(), concat(args("get", "s3://bkt/p", "--max-time", "1s"), spec()));
    assertDeadlineExit4(r, "1s");
  }

  @Test
  void publish_endpointNeverAnswers_exit4AtTheDeadline() throws IOException {
    Path f = Files.writeString(dir.resolve("result"), "rows");
    Cli.Result r = bounded(s3(), concat(args("publish", "s3://bkt/p", "--file", f.toString(), "--max-time", "1s"),
        spec()));
    assertEquals(ExitCodes.STORE_UNAVAILABLE, r.code(), r.describe());
    assertTrue(r.err().contains("the 1s deadline (--max-time) ran out"), r.describe());
  }

  @Test
  void run_endpointNeverAnswers_exit4WithoutStartingCmd() {
    Path ran = dir.resolve("cmd-ran");
    Cli.Result r = bounded(s3(), concat(concat(args("run", "s3://bkt/p", "--max-time", "1s"), spec()),
        "--", "sh", "-c", "touch '" + ran + "'; echo rows > \"$IDEM_OUTPUT\""));

    assertDeadlineExit4(r, "1s");
    assertFalse(Files.exists(ran), "CMD must not start once the store did not answer in time");
  }

  @Test
  void scan_endpointNeverAnswers_maxTimeIsHardExit1NamingTheCutRequest() {
    Cli.Result r = bounded(s3(), args("scan", "s3://bkt/p", "--pipeline", "p", "--max-time", "2s"));

    assertEquals(ExitCodes.DIVERGENT, r.code(), "a cut-short scan is never clean: " + r.describe());
    assertTrue(r.err().contains("idem scan: stopped early by the 2s deadline (--max-time): not a clean result; the "
        + "request in flight was cut: GET bkt"), r.describe());
  }

  @Test
  void scan_listingStallsAfterHeaders_exit1() {
    server.otherwise(req -> stall("<ListVersionsResult>"));

    Cli.Result r = bounded(s3(), args("scan", "s3://bkt/p", "--max-time", "2s", "--list-parallelism", "1"));

    assertEquals(ExitCodes.DIVERGENT, r.code(), r.describe());
    assertTrue(r.err().contains("stopped early by the 2s deadline (--max-time)"), r.describe());
  }

  @Test
  void gcPointerAdvanceRewindDoctor_endpointNeverAnswers_exit4AtTheDeadline() {
    assertDeadlineExit4(bounded(s3(), args("gc", "s3://bkt/p", "--pipeline", "p", "--keep", "1", "--max-time", "1s")),
        "1s");
    assertDeadlineExit4(bounded(s3(), concat(args("pointer advance", "s3://bkt/p", "--max-time", "1s"), spec())),
        "1s");
    assertDeadlineExit4(bounded(s3(), concat(args("pointer rewind", "s3://bkt/p", "--max-time", "1s", "--expect",
        "p/1/state-" + "0".repeat(64), "--reason", "bad rows"), spec())), "1s");
    Cli.Result doctor = bounded(s3(), args("doctor", "s3://bkt/p", "--max-time", "1s"));
    assertEquals(ExitCodes.STORE_UNAVAILABLE, doctor.code(), doctor.describe());
    assertTrue(doctor.err().contains("the 1s deadline (--max-time) ran out"), doctor.describe());
  }

  @Test
  void pointerShow_readTimeoutOnEveryAttempt_exit4NamingTheReadTimeout() {
    Cli.Result r = bounded(s3().env("IDEM_READ_TIMEOUT", "PT0.5S"),
        args("pointer show", "s3://bkt/p", "--pipeline", "p", "--max-time", "30s"));

    assertEquals(ExitCodes.STORE_UNAVAILABLE, r.code(), r.describe());
    assertTrue(r.err().endsWith("failed: read timeout: no reply within 500ms (after 6 attempts)\n"), r.describe());
  }

  @Test
  void pointerShow_credentialsEndpointNeverAnswers_exit4AtTheDeadline() throws IOException {
    try (FakeS3Server credentials = new FakeS3Server().otherwise(req -> new Silent())) {
      Cli cli = new Cli().env("AWS_ENDPOINT_URL", server.endpoint().toString()).env("AWS_REGION", "us-east-1")
          .env("AWS_CONTAINER_CREDENTIALS_FULL_URI", credentials.endpoint() + "/v2/creds")
          .env("AWS_EC2_METADATA_DISABLED", "true").env("HOME", dir.toString());

      Cli.Result r = bounded(cli, args("pointer show", "s3://bkt/p", "--pipeline", "p", "--max-time", "1s"));

      assertDeadlineExit4(r, "1s");
      assertTrue(r.err().contains("ran out while fetching credentials: container: " + credentials.endpoint()
          + " did not answer within"), r.describe());
      assertEquals(0, server.requests().size(), "nothing reached S3 unsigned: " + r.describe());
    }
  }

  @Test
  void timeouts_notPositiveOrNotDurations_usageExit2() {
    Cli.Result zero = s3().run(args("pointer show", "s3://bkt/p", "--pipeline", "p", "--max-time", "0s"));
    assertEquals(ExitCodes.USAGE, zero.code(), zero.describe());
    assertTrue(zero.err().contains("--max-time must be positive"), zero.describe());

    Cli.Result bare = s3().env("IDEM_CONNECT_TIMEOUT", "10").run(args("pointer show", "s3://bkt/p", "--pipeline", "p"));
    assertEquals(ExitCodes.USAGE, bare.code(), bare.describe());
    assertTrue(bare.err().contains("IDEM_CONNECT_TIMEOUT: '10' is not a duration"), bare.describe());
    assertEquals(0, server.requests().size(), "nothing sent");
  }

  @Test
  void run_cmdLongerThanMaxTime_notCountedThePointerWaitEndsAtPointerTimeout() throws Exception {
    Path root = dir.resolve("store");
    String store = "file:" + root;
    Path first = Files.writeString(dir.resolve("g1"), "rows 1");
    assertEquals(0, new Cli().run(concat(args("publish", store, "--file", first.toString()), spec())).code());
    // A CMD that takes an hour, far past --max-time: the deadline's ticker is real time plus the hour
    // once CMD has left its mark (so the hour passes while CMD runs, and is not waited for).
    Path tookAnHour = dir.resolve("cmd-took-an-hour");
    long hour = Duration.ofHours(1).toNanos();
    try (FileChannel ch = FileChannel.open(lockFileUnder(root), StandardOpenOption.WRITE);
        FileLock held = ch.lock()) {
      assertTrue(held.isValid());
      Cli.Result r = bounded(new Cli().ticker(() -> System.nanoTime() + (Files.exists(tookAnHour) ? hour : 0)),
          concat(args("run", store, "--max-time", "10m", "--pointer-timeout", "1s"), "--pipeline", "p", "--window",
              "60s", "--at", "1726000090", "--schema", "1", "--", "sh", "-c",
              "touch '" + tookAnHour + "'; echo rows > \"$IDEM_OUTPUT\""));

      assertEquals(ExitCodes.CONTENDED, r.code(), r.describe());
      assertTrue(r.out().startsWith("CREATED "), "CMD's own runtime is not idem's store work: " + r.describe());
      assertTrue(r.err().contains("attempt; --pointer-timeout 1s)") || r.err().contains("attempts; --pointer-timeout 1s)"),
          "the hour CMD took did not count: the lock wait ran out of its own timeout, not --max-time: "
              + r.describe());
    }
  }

  @Test
  void publish_stdinSlowerThanMaxTime_notCountedThePointerWaitEndsAtPointerTimeout() throws Exception {
    Path root = dir.resolve("store");
    String store = "file:" + root;
    Path first = Files.writeString(dir.resolve("g1"), "rows 1");
    assertEquals(0, new Cli().run(concat(args("publish", store, "--file", first.toString()), spec())).code());
    // A producer that takes an hour to write its result, far past --max-time: the deadline's ticker is
    // real time plus the hour, which passes while stdin is read (and is not waited for).
    AtomicLong producing = new AtomicLong();
    InputStream slowProducer = new InputStream() {
      private final InputStream rows = new ByteArrayInputStream("rows 2".getBytes(StandardCharsets.UTF_8));

      @Override
      public int read() throws IOException {
        producing.set(Duration.ofHours(1).toNanos());
        return rows.read();
      }
    };
    try (FileChannel ch = FileChannel.open(lockFileUnder(root), StandardOpenOption.WRITE);
        FileLock held = ch.lock()) {
      assertTrue(held.isValid());
      Cli.Result r = bounded(new Cli().stdin(slowProducer).ticker(() -> System.nanoTime() + producing.get()),
          concat(args("publish", store, "--file", "-", "--max-time", "10m", "--pointer-timeout", "1s"),
              "--pipeline", "p", "--window", "60s", "--at", "1726000090", "--schema", "1"));

      assertEquals(ExitCodes.CONTENDED, r.code(), r.describe());
      assertTrue(r.out().startsWith("CREATED "), r.describe());
      assertTrue(r.err().contains("attempt; --pointer-timeout 1s)") || r.err().contains("attempts; --pointer-timeout 1s)"),
          "the hour stdin took did not count: the lock wait ran out of its own timeout, not --max-time: "
              + r.describe());
    }
  }

  private static Path lockFileUnder(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(p -> p.getFileName().toString().equals("latest.lock")).findFirst().orElseThrow();
    }
  }

  @Test
  void fileStore_pointerLockNeverReleased_everyLockingCommandEndsAtItsDeadline() throws Exception {
    Path root = dir.resolve("store");
    String store = "file:" + root;
    Path first = Files.writeString(dir.resolve("g1"), "rows 1");
    Path second = Files.writeString(dir.resolve("g2"), "rows 2");
    assertEquals(0, new Cli().run(concat(args("publish", store, "--file", first.toString()),
        "--pipeline", "p", "--window", "60s", "--at", "1726000030", "--schema", "1")).code());
    assertEquals(0, new Cli().run(concat(args("publish", store, "--file", second.toString()),
        "--pipeline", "p", "--window", "60s", "--at", "1726000090", "--schema", "1")).code());
    String current = new Cli().run(args("pointer show", store, "--pipeline", "p")).outLines()[1].substring(4);

    // Another holder of the kernel lock that never lets go (a stopped process, in effect); the pointer
    // timeout (30 s) and the store's lock timeout (10 s) are both longer than the deadlines given.
    try (FileChannel ch = FileChannel.open(lockFileUnder(root), StandardOpenOption.WRITE);
        FileLock held = ch.lock()) {
      assertTrue(held.isValid());
      Path third = Files.writeString(dir.resolve("g3"), "rows 3");
      Cli.Result publish = bounded(new Cli(), concat(args("publish", store, "--file", third.toString(),
          "--max-time", "2s"), "--pipeline", "p", "--window", "60s", "--at", "1726000150", "--schema", "1"));
      assertEquals(ExitCodes.CONTENDED, publish.code(), publish.describe());
      assertTrue(publish.out().contains(" pointer=BUSY"), publish.describe());
      assertTrue(publish.err().contains("; what was left of the 2s deadline (--max-time))"), publish.describe());

      Cli.Result run = bounded(new Cli(), concat(args("run", store, "--max-time", "2s"), "--pipeline", "p",
          "--window", "60s", "--at", "1726000210", "--schema", "1", "--", "sh", "-c", "echo rows > \"$IDEM_OUTPUT\""));
      assertEquals(ExitCodes.CONTENDED, run.code(), run.describe());
      assertTrue(run.err().contains("; what was left of the 2s deadline (--max-time))"), run.describe());

      Cli.Result rewind = bounded(new Cli(), concat(args("pointer rewind", store, "--max-time", "2s", "--expect",
          current, "--reason", "bad rows"), "--pipeline", "p", "--window", "60s", "--at", "1726000030", "--schema", "1"));
      assertEquals(ExitCodes.CONTENDED, rewind.code(), rewind.describe());
      assertTrue(rewind.err().contains("(what was left of the 2s deadline (--max-time))"), rewind.describe());

      Cli.Result gc = bounded(new Cli(), args("gc", store, "--pipeline", "p", "--keep", "1", "--grace", "0s",
          "--max-time", "2s"));
      assertEquals(ExitCodes.STORE_UNAVAILABLE, gc.code(), gc.describe());
      assertTrue(gc.err().contains("latest.lock within ") && gc.err().contains("(what was left of the 2s deadline "
          + "(--max-time)) to raise the retirement mark"), gc.describe());
    }
  }
}
