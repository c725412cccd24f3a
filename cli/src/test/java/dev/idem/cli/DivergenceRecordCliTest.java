package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.store.fs.FsObjectStore;
import dev.idem.store.fs.ForwardingOps;
import dev.idem.store.s3.S3ObjectStore;
import dev.idem.store.s3.S3StoreOptions;
import dev.idem.store.s3.S3TestStores;
import dev.idem.store.s3.internal.client.RetryPolicy;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.testing.InterceptingHttpClient;
import dev.idem.store.s3.testing.InterceptingHttpClient.ErrorReply;
import dev.idem.store.s3.testing.S3ProxyServer;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.http.HttpRequest;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A divergence the store could not record whole still ends the command DIVERGENT (exit 1) with a line
 * saying what was not kept and why, never exit 4 or 5 as if the store had only hiccupped (P8); once its
 * marker was written, {@code idem scan} fails the gate on the key. On the filesystem store (a failing
 * {@link ForwardingOps}) and on S3 (S3Proxy, with the evidence requests answered in its place).
 */
class DivergenceRecordCliTest {
  private static final String[] SPEC = {"--pipeline", "border-state", "--window", "60s", "--at", "1726000030",
      "--schema", "3"};
  private static final String KEY = RunSpec.of("border-state", new Window(1_725_999_960L, 60), 3).outputKey().toString();

  @TempDir
  Path dir;

  private Cli.Result publish(CliContext.StoreOpener opener, String content, String... extra) throws IOException {
    Path f = Files.writeString(Files.createTempFile(dir, "p", ""), content);
    String[] args = new String[SPEC.length + extra.length + 7];
    String[] head = {"publish", "--file", f.toString(), "--store", "file:unused", "--writer", "host-b"};
    System.arraycopy(head, 0, args, 0, head.length);
    System.arraycopy(SPEC, 0, args, head.length, SPEC.length);
    System.arraycopy(extra, 0, args, head.length + SPEC.length, extra.length);
    return new Cli().opener(opener).run(args);
  }

  private static Cli.Result scan(CliContext.StoreOpener opener) {
    return new Cli().opener(opener).run("scan", "--pipeline", "border-state", "--store", "file:unused");
  }

  // --- filesystem

  /**
   * The real filesystem, except the {@code createNew} or {@code createLink} ({@code method}) calls
   * whose new name {@code fails} picks, which fail as a full disk does.
   */
  private static ForwardingOps failing(Predicate<Path> fails, String method) {
    return new ForwardingOps() {
      @Override
      public FileChannel createNew(Path file) throws IOException {
        failIfPicked("createNew", file);
        return super.createNew(file);
      }

      @Override
      public void createLink(Path link, Path existing) throws IOException {
        failIfPicked("createLink", link);
        super.createLink(link, existing);
      }

      private void failIfPicked(String called, Path name) throws FileSystemException {
        if (called.equals(method) && fails.test(name)) {
          throw new FileSystemException(name.toString(), null, "No space left on device");
        }
      }
    };
  }

  private CliContext.StoreOpener fs(Path root, ForwardingOps ops) {
    return uri -> ops.openStore(root, FsObjectStore.Options.defaults());
  }

  @Test
  void publish_fsDivergentRecordCannotBeWritten_exit1SayingItCouldNotBeRecorded() throws IOException {
    Path root = dir.resolve("store");
    assertEquals(0, publish(fs(root, new ForwardingOps()), "rows\n").code());
    ForwardingOps noRecord = failing(p -> p.toString().contains("!DIVERGENT."), "createNew");

    Cli.Result r = publish(fs(root, noRecord), "other rows\n");
    assertEquals(ExitCodes.DIVERGENT, r.code(), r.describe());
    assertTrue(r.out().startsWith("DIVERGENT " + KEY + " "), r.describe());
    assertTrue(r.out().contains(" record=NOT_RECORDED pointer="), r.describe());
    assertTrue(r.err().contains("this attempt could NOT be recorded, so 'idem scan' will not report it"), r.describe());
    assertTrue(r.err().contains("idem: the divergence could not be recorded (this exit status is its only report): "
        + "could not write the DIVERGENT record of " + root.toRealPath().resolve(KEY)), r.describe());
    assertTrue(r.err().contains("No space left on device"), r.describe());

    Cli.Result json = publish(fs(root, noRecord), "other rows\n", "--json", "--quiet");
    assertEquals(ExitCodes.DIVERGENT, json.code(), json.describe());
    Map<String, Object> o = MiniJson.object(json.out());
    assertEquals("DIVERGENT", o.get("status"), json.describe());
    assertEquals("NOT_RECORDED", o.get("divergence_record"), json.describe());
    assertTrue(((String) o.get("record_failure")).contains("No space left on device"), json.describe());
    assertEquals(1, json.errLines().length, "under --quiet the one line that reports the divergence stays: "
        + json.describe());
  }

  @Test
  void publish_fsEvidenceLinkFails_exit1BytesNotKeptAndTheScanFailsTheGate() throws IOException {
    Path root = dir.resolve("store");
    assertEquals(0, publish(fs(root, new ForwardingOps()), "rows\n").code());
    ForwardingOps noEvidence = failing(p -> p.toString().contains("/_idem/evidence/"), "createLink");

    Cli.Result r = publish(fs(root, noEvidence), "other rows\n");
    assertEquals(ExitCodes.DIVERGENT, r.code(), r.describe());
    assertTrue(r.out().contains(" record=BYTES_NOT_KEPT pointer="), r.describe());
    assertTrue(r.err().contains("this attempt is recorded for 'idem scan', but its bytes were not kept"), r.describe());
    assertTrue(r.err().contains("idem: the divergence is recorded, but this replica's bytes were not kept: could not keep"
        + " the divergent bytes of " + root.toRealPath().resolve(KEY)), r.describe());

    Cli.Result scan = scan(fs(root, new ForwardingOps()));
    assertEquals(ExitCodes.DIVERGENT, scan.code(), scan.describe());
    assertTrue(scan.out().startsWith("DIVERGENT " + KEY + " writes=2 payloads=2\n"), scan.describe());
  }

  @Test
  void run_fsDivergentRecordCannotBeWritten_exit1NotAnIoError() throws IOException {
    Path root = dir.resolve("store");
    assertEquals(0, publish(fs(root, new ForwardingOps()), "rows\n").code());
    ForwardingOps noRecord = failing(p -> p.toString().contains("!DIVERGENT."), "createNew");
    // run skips a published key; it meets other bytes only when another replica published between its
    // check and its publish, which a store that hides the pointer and the key from the skip check (their
    // first looks) plays.
    AtomicBoolean looked = new AtomicBoolean();
    AtomicBoolean peeked = new AtomicBoolean();
    CliContext.StoreOpener racing = uri -> {
      ObjectStore s = noRecord.openStore(root, FsObjectStore.Options.defaults());
      return (ObjectStore) Proxy.newProxyInstance(ObjectStore.class.getClassLoader(), new Class<?>[] {ObjectStore.class},
          (proxy, m, args) -> {
            if (m.getName().equals("exists")) {
              return false;
            }
            if (m.getName().equals("stat") && !looked.getAndSet(true)
                || m.getName().equals("peekPointer") && !peeked.getAndSet(true)) {
              return Optional.empty();
            }
            try {
              return m.invoke(s, args);
            } catch (InvocationTargetException e) {
              throw e.getCause();
            }
          });
    };
    Cli.Result r = new Cli().opener(racing).run("run", "--pipeline", "border-state", "--window", "60s", "--at",
        "1726000030", "--schema", "3", "--store", "file:unused", "--writer", "host-b", "--", "sh", "-c",
        "echo other > \"$IDEM_OUTPUT\"");
    assertEquals(ExitCodes.DIVERGENT, r.code(), r.describe());
    assertTrue(r.out().contains(" record=NOT_RECORDED "), r.describe());
    assertTrue(r.err().contains("idem: the divergence could not be recorded"), r.describe());
  }

  /** Killed between the DIVERGENT record and the evidence link: the scan still fails the gate. */
  @Test
  void scan_fsPublisherKilledBeforeItsEvidence_exit1() throws IOException {
    Path root = dir.resolve("store");
    assertEquals(0, publish(fs(root, new ForwardingOps()), "rows\n").code());
    ForwardingOps dying = new ForwardingOps() {
      @Override
      public void createLink(Path link, Path existing) throws IOException {
        if (link.toString().contains("/_idem/evidence/")) {
          throw new KilledHere();
        }
        super.createLink(link, existing);
      }
    };
    try (FsObjectStore store = dying.openStore(root, FsObjectStore.Options.defaults())) {
      assertThrows(KilledHere.class, () -> store.putIfAbsent(KEY, Payload.ofBytes(new byte[] {1, 2, 3}), "host-b"));
    }
    Cli.Result scan = scan(fs(root, new ForwardingOps()));
    assertEquals(ExitCodes.DIVERGENT, scan.code(), scan.describe());
    assertTrue(scan.out().startsWith("DIVERGENT " + KEY + " writes=2 payloads=2\n"), scan.describe());
  }

  // --- S3

  private static S3ProxyServer s3() throws IOException {
    return S3ProxyServer.shared();
  }

  /** An S3 store on {@code bucket} whose requests {@code which} picks are answered {@code reply}, on every retry. */
  private static CliContext.StoreOpener s3(String bucket, Predicate<HttpRequest> which, ErrorReply reply,
      S3StoreOptions options) throws IOException {
    S3ProxyServer server = s3();
    return uri -> {
      InterceptingHttpClient http = InterceptingHttpClient.answering(r -> { }, r -> which.test(r) ? reply : null);
      S3Client client = S3Client.builder(server.endpoint(), S3ProxyServer.REGION, server.credentials()).pathStyle(true)
          .httpClient(http).retry(new RetryPolicy(3, Duration.ZERO, Duration.ZERO)).build();
      return S3TestStores.open(client, server.location(bucket, "exports"), options);
    };
  }

  private static boolean evidenceBytes(HttpRequest r) {
    return !r.method().equals("GET") && !r.method().equals("HEAD")
        && InterceptingHttpClient.path(r).matches(".*/_idem/evidence/.*![0-9a-f]{64}");
  }

  private static boolean evidenceArea(HttpRequest r) {
    return r.method().equals("PUT") && InterceptingHttpClient.path(r).contains("/_idem/evidence/");
  }

  @Test
  void publish_s3EvidenceSlowDownOnEveryRetry_exit1BytesNotKeptAndTheScanFailsTheGate() throws IOException {
    String bucket = s3().createBucket(true);
    CliContext.StoreOpener plain = s3(bucket, r -> false, null, S3StoreOptions.defaults());
    assertEquals(0, publish(plain, "rows\n").code());

    Cli.Result r = publish(s3(bucket, DivergenceRecordCliTest::evidenceBytes, new ErrorReply(503, "SlowDown"),
        S3StoreOptions.defaults()), "other rows\n");
    assertEquals(ExitCodes.DIVERGENT, r.code(), r.describe());
    assertTrue(r.out().contains(" record=BYTES_NOT_KEPT pointer="), r.describe());
    assertTrue(r.err().contains("idem: the divergence is recorded, but this replica's bytes were not kept: could not keep"
        + " the divergent bytes at s3://" + bucket + "/exports/_idem/evidence/" + KEY + "!"), r.describe());
    assertTrue(r.err().contains("SlowDown"), r.describe());

    Cli.Result scan = scan(plain);
    assertEquals(ExitCodes.DIVERGENT, scan.code(), scan.describe());
    assertTrue(scan.out().startsWith("DIVERGENT " + KEY + " writes=2 payloads=2\n"), scan.describe());
  }

  @Test
  void publish_s3EvidenceAreaDenied_exit1NotAnAuthFailure() throws IOException {
    String bucket = s3().createBucket(true);
    assertEquals(0, publish(s3(bucket, r -> false, null, S3StoreOptions.defaults()), "rows\n").code());

    Cli.Result r = publish(s3(bucket, DivergenceRecordCliTest::evidenceArea, new ErrorReply(403, "AccessDenied"),
        S3StoreOptions.defaults()), "other rows\n", "--json");
    assertEquals(ExitCodes.DIVERGENT, r.code(), r.describe());
    Map<String, Object> o = MiniJson.object(r.out());
    assertEquals("NOT_RECORDED", o.get("divergence_record"), r.describe());
    String failure = (String) o.get("record_failure");
    assertTrue(failure.startsWith("could not write the divergence marker s3://" + bucket + "/exports/_idem/evidence/"),
        r.describe());
    assertTrue(failure.contains("AccessDenied") || failure.contains("access denied"), r.describe());
    assertTrue(r.err().contains("idem: the divergence could not be recorded (this exit status is its only report): "),
        r.describe());
  }

  /** Killed while a multipart-sized attempt is uploaded as evidence (the threshold lowered to 5 MiB). */
  @Test
  void scan_s3PublisherKilledDuringMultipartEvidence_exit1() throws IOException {
    String bucket = s3().createBucket(false);
    S3StoreOptions multipart = S3StoreOptions.builder().multipartThreshold(5L << 20).partSize(5L << 20).build();
    CliContext.StoreOpener plain = s3(bucket, r -> false, null, multipart);
    try (ObjectStore first = plain.open("unused")) {
      first.putIfAbsent(KEY, Payload.ofBytes(random(6 << 20, 1)), "host-a");
    }
    S3ProxyServer server = s3();
    InterceptingHttpClient dying = new InterceptingHttpClient(r -> {
      String q = r.uri().getRawQuery();
      if (evidenceBytes(r) && r.method().equals("POST") && q != null && q.startsWith("uploads")) {
        throw new KilledHere();
      }
    });
    S3Client client = S3Client.builder(server.endpoint(), S3ProxyServer.REGION, server.credentials()).pathStyle(true)
        .httpClient(dying).build();
    try (S3ObjectStore store = S3TestStores.open(client, server.location(bucket, "exports"), multipart)) {
      assertThrows(KilledHere.class, () -> store.putIfAbsent(KEY, Payload.ofBytes(random(6 << 20, 2)), "host-b"));
    }
    Cli.Result scan = scan(plain);
    assertEquals(ExitCodes.DIVERGENT, scan.code(), scan.describe());
    assertTrue(scan.out().startsWith("DIVERGENT " + KEY + " writes=2 payloads=2\n"), scan.describe());
  }

  private static byte[] random(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }

  /** What a process killed at a call looks like from inside: no I/O error, nothing after it runs. */
  private static final class KilledHere extends Error {
    private static final long serialVersionUID = 1L;
  }
}
