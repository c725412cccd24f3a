package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.Payload;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.store.PutStatus;
import dev.idem.store.s3.internal.client.ObjectHead;
import dev.idem.store.s3.internal.client.ObjectVersion;
import dev.idem.store.s3.internal.client.RequestBody;
import dev.idem.store.s3.testing.QuirkProxy;
import dev.idem.store.s3.testing.QuirkProxy.Quirk;
import dev.idem.store.s3.testing.S3ProxyServer;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A multipart completion applied over an earlier version (a server that does not apply {@code
 * If-None-Match: *} to racing completions, as moto) whose reply is then lost: the retried completion
 * finds its upload gone and the key holding this very call's object. That is the call's own write, but
 * not the key's first: it must give way as a completion whose reply arrived does, deleting its own
 * version so the first is current again, and be decided against the first (IDENTICAL or DIVERGENT),
 * never CREATED beside the first writer's CREATED. Played on S3Proxy, which keeps versions in a
 * versioned bucket and answers the retried completion 200 again, without the version it created,
 * behind a gateway that drops {@code If-None-Match} from completions (so the second one lands, as racing
 * ones do on moto) and answers the first completion it forwards with a 500 after the server applied it.
 */
class S3CompletionReplyLostTest {
  private static final int MIB = 1024 * 1024;
  private static final int SIZE = 6 * MIB;
  private static final String KEY = RunSpec.of("orders", new Window(1_726_000_000L, 60), 1).outputKey().toString();
  private static S3ProxyServer s3;

  @BeforeAll
  static void server() throws IOException {
    s3 = S3ProxyServer.shared();
  }

  private static byte[] random(long seed) {
    byte[] b = new byte[SIZE];
    new Random(seed).nextBytes(b);
    return b;
  }

  /** Multipart from 5 MiB, and no HEAD before the upload, so the second publish reaches its completion. */
  private static S3StoreOptions options() {
    return S3StoreOptions.builder().multipartThreshold(5 * MIB).partSize(5 * MIB).headFirstThreshold(Long.MAX_VALUE)
        .build();
  }

  /** A completion forwarded, applied, and its reply replaced by a 500, once; then every request passes. */
  private static Quirk losesFirstCompletionReply(AtomicInteger lost) {
    AtomicBoolean done = new AtomicBoolean();
    return (request, next) -> {
      QuirkProxy.Reply reply = next.send(request);
      if (request.isCompletion() && reply.status() == 200 && done.compareAndSet(false, true)) {
        lost.incrementAndGet();
        return QuirkProxy.Reply.error(500, "InternalError", "the reply was lost after the completion was applied");
      }
      return reply;
    };
  }

  private static List<ObjectVersion> versions(String bucket) throws IOException {
    return s3.client().listVersions(bucket, "p/" + KEY, null, null, 1000).versions();
  }

  private static byte[] current(String bucket) throws IOException {
    try (InputStream in = s3.client().get(bucket, "p/" + KEY).orElseThrow().body()) {
      return in.readAllBytes();
    }
  }

  private PutOutcome secondPublishWithLostReply(String bucket, byte[] second, AtomicInteger lost) throws IOException {
    try (QuirkProxy proxy = new QuirkProxy(s3, losesFirstCompletionReply(lost),
        Quirk.strips("POST", Set.of("If-None-Match"), new AtomicInteger()));
        S3ObjectStore store = S3ObjectStore.open(s3.location(bucket, "p").withEndpoint(proxy.endpoint(), true),
            s3.credentials(), options())) {
      return store.putIfAbsent(KEY, Payload.ofBytes(second), "replica-b");
    }
  }

  private static void firstPublish(String bucket, byte[] first) throws IOException {
    try (S3ObjectStore store = S3ObjectStore.open(s3.location(bucket, "p"), s3.credentials(), options())) {
      assertEquals(PutStatus.CREATED, store.putIfAbsent(KEY, Payload.ofBytes(first), "replica-a").status());
    }
  }

  /**
   * The same, with a third racing completion landing on top while the reply is lost: the retried
   * completion's reply names no version and the key's current version is the third writer's, so this
   * call's version is found down the key's life by its attempt. It gives way to the first. Before, it
   * reported CREATED beside the first writer's CREATED.
   */
  @Test
  void putIfAbsent_completionReplyLostWhileAnotherLandsOnTop_givesWayToTheFirst() throws IOException {
    String bucket = s3.createBucket(true);
    byte[] bytes = random(1);
    firstPublish(bucket, bytes);
    AtomicInteger lost = new AtomicInteger();
    AtomicBoolean done = new AtomicBoolean();
    Quirk thirdOnTop = (request, next) -> {
      QuirkProxy.Reply reply = next.send(request);
      if (request.isCompletion() && reply.status() == 200 && done.compareAndSet(false, true)) {
        s3.client().put(bucket, "p/" + KEY, RequestBody.ofBytes(random(3)), null, Map.of());
        lost.incrementAndGet();
        return QuirkProxy.Reply.error(500, "InternalError", "the reply was lost after the completion was applied");
      }
      return reply;
    };

    PutOutcome second;
    try (QuirkProxy proxy = new QuirkProxy(s3, thirdOnTop, Quirk.strips("POST", Set.of("If-None-Match"),
        new AtomicInteger()));
        S3ObjectStore store = S3ObjectStore.open(s3.location(bucket, "p").withEndpoint(proxy.endpoint(), true),
            s3.credentials(), options())) {
      second = store.putIfAbsent(KEY, Payload.ofBytes(bytes), "replica-b");
    }

    assertEquals(1, lost.get(), "the second completion was applied and its reply lost");
    assertEquals(PutStatus.IDENTICAL, second.status(), second.toString());
    assertEquals("replica-a", second.stored().writer(), second.toString());
    assertEquals(2, versions(bucket).size(), "the second publish removed its version; the third's stays: "
        + versions(bucket));
  }

  @Test
  void putIfAbsent_sameBytesCompletionAppliedOverFirstReplyLost_identicalFirstVersionCurrent() throws IOException {
    String bucket = s3.createBucket(true);
    byte[] bytes = random(1);
    firstPublish(bucket, bytes);
    String first = versions(bucket).get(0).versionId();
    AtomicInteger lost = new AtomicInteger();

    PutOutcome second = secondPublishWithLostReply(bucket, bytes, lost);

    assertEquals(1, lost.get(), "the second completion was applied and its reply lost");
    assertEquals(PutStatus.IDENTICAL, second.status(), second.toString());
    List<ObjectVersion> left = versions(bucket);
    assertEquals(1, left.size(), "the second publish's version is removed: " + left);
    assertEquals(first, left.get(0).versionId());
  }

  @Test
  void putIfAbsent_otherBytesCompletionAppliedOverFirstReplyLost_divergentFirstBytesCurrent() throws IOException {
    String bucket = s3.createBucket(true);
    byte[] bytes = random(1);
    firstPublish(bucket, bytes);
    AtomicInteger lost = new AtomicInteger();

    PutOutcome second = secondPublishWithLostReply(bucket, random(2), lost);

    assertEquals(1, lost.get(), "the second completion was applied and its reply lost");
    assertEquals(PutStatus.DIVERGENT, second.status(), second.toString());
    assertArrayEquals(bytes, current(bucket), "the first publish's bytes are current");
  }
  /**
   * A completion applied twice, as S3Proxy applies one sent again while the first send is still being
   * applied: two versions carry this call's attempt, and its reply names the earlier one while the later
   * one is current. The call is the key's first writer: CREATED, and it removes the later copy, so one
   * version stays. Before, it waited for the later copy's writer (itself) to give way, then read the
   * listing's order and left both versions.
   */
  @Test
  void putIfAbsent_completionAppliedTwice_createdItsLaterCopyRemoved() throws IOException {
    String bucket = s3.createBucket(true);
    byte[] bytes = random(4);
    AtomicInteger copies = new AtomicInteger();
    Quirk appliedTwice = (request, next) -> {
      QuirkProxy.Reply reply = next.send(request);
      if (request.isCompletion() && reply.status() == 200) {
        ObjectHead applied = s3.client().head(bucket, request.key(), null).orElseThrow();
        s3.client().put(bucket, request.key(), RequestBody.ofBytes(bytes), null, applied.metadata());
        copies.incrementAndGet();
      }
      return reply;
    };

    PutOutcome out;
    try (QuirkProxy proxy = new QuirkProxy(s3, appliedTwice);
        S3ObjectStore store = S3ObjectStore.open(s3.location(bucket, "p").withEndpoint(proxy.endpoint(), true),
            s3.credentials(), options())) {
      out = store.putIfAbsent(KEY, Payload.ofBytes(bytes), "replica-a");
    }

    assertEquals(1, copies.get(), "the completion was applied a second time");
    assertEquals(PutStatus.CREATED, out.status(), out.toString());
    assertEquals(1, versions(bucket).size(), "the later copy is removed: " + versions(bucket));
    assertArrayEquals(bytes, current(bucket));
  }
}
