package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.Payload;
import dev.idem.core.store.PutStatus;
import dev.idem.store.s3.testing.S3ProxyServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Closing a store releases the HTTP client it made: the client's selector thread ends, so a process done
 * with its stores exits without the JVM waiting 0.3 s for a thread in native code, and a store used after
 * it was closed fails at once, naming why, on every JDK (on JDK 17 a request through a client whose thread
 * has ended would never be answered); credentials the store owns are closed with it. Against S3Proxy.
 */
class S3StoreCloseTest {
  private static final Pattern SELECTOR = Pattern.compile("HttpClient-\\d+-SelectorManager");
  private static final String KEY = RunSpec.of("orders", new Window(0, 60), 1).outputKey().toString();
  private static final Payload PAYLOAD = Payload.ofBytes("rows".getBytes(StandardCharsets.UTF_8));

  private S3ProxyServer s3;

  @BeforeEach
  void server() throws IOException {
    s3 = S3ProxyServer.shared();
  }

  private static List<Thread> selectorThreads() {
    ThreadGroup root = Thread.currentThread().getThreadGroup();
    while (root.getParent() != null) {
      root = root.getParent();
    }
    Thread[] all = new Thread[root.activeCount() + 64];
    int n = root.enumerate(all, true);
    List<Thread> found = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (SELECTOR.matcher(all[i].getName()).matches()) {
        found.add(all[i]);
      }
    }
    return found;
  }

  @Test
  void close_theStoresHttpThreadEnds_aUseAfterFailsAtOnce() throws Exception {
    String bucket = s3.createBucket(false);
    List<Thread> before = selectorThreads();

    S3ObjectStore store = S3ObjectStore.open(s3.location(bucket, "p/"), s3.credentials(), S3StoreOptions.defaults());
    assertEquals(PutStatus.CREATED, store.putIfAbsent(KEY, PAYLOAD, "host-a").status());
    List<Thread> stores = selectorThreads();
    stores.removeAll(before);
    assertEquals(1, stores.size(), "the store made one HTTP client: " + stores);

    store.close();

    Thread selector = stores.get(0);
    selector.join(Duration.ofSeconds(10).toMillis());
    assertFalse(selector.isAlive(), selector.getName() + " still running after close");
    Exception e = assertTimeoutPreemptively(Duration.ofSeconds(30),
        () -> assertThrows(Exception.class, () -> store.putIfAbsent(KEY, PAYLOAD, "host-a")));
    List<String> messages = new ArrayList<>();
    for (Throwable t = e; t != null; t = t.getCause()) {
      messages.add(String.valueOf(t.getMessage()));
    }
    assertTrue(messages.stream().anyMatch(m -> m.contains("released")), messages.toString());
  }

  /** A store given credentials to own closes them with itself; one merely given them leaves them open. */
  @Test
  void close_closesOwnedCredentialsOnly() throws Exception {
    String bucket = s3.createBucket(false);
    AtomicInteger ownedClosed = new AtomicInteger();
    AtomicInteger lentClosed = new AtomicInteger();
    S3ObjectStore owning = S3ObjectStore.openOwningCredentials(s3.location(bucket, "a/"),
        closeCounting(s3.credentials(), ownedClosed), S3StoreOptions.defaults());
    S3ObjectStore lent = S3ObjectStore.open(s3.location(bucket, "b/"), closeCounting(s3.credentials(), lentClosed),
        S3StoreOptions.defaults());
    assertEquals(PutStatus.CREATED, owning.putIfAbsent(KEY, PAYLOAD, "host-a").status());
    assertEquals(PutStatus.CREATED, lent.putIfAbsent(KEY, PAYLOAD, "host-a").status());

    owning.close();
    lent.close();

    assertEquals(1, ownedClosed.get(), "the owning store closed its credentials");
    assertEquals(0, lentClosed.get(), "credentials lent to a store are the lender's to close");
  }

  private static CredentialsProvider closeCounting(CredentialsProvider inner, AtomicInteger closed) {
    return new CredentialsProvider() {
      @Override
      public AwsCredentials resolve() throws IOException {
        return inner.resolve();
      }

      @Override
      public void close() {
        closed.incrementAndGet();
      }
    };
  }

  @Test
  void close_neverUsed_startsNoHttpThread() throws IOException {
    List<Thread> before = selectorThreads();
    S3ObjectStore store = S3ObjectStore.open(s3.location("unused", "p/"), s3.credentials(), S3StoreOptions.defaults());
    List<Thread> now = selectorThreads();
    now.removeAll(before);
    assertEquals(List.of(), now, "a store not yet used has no HTTP client");
    store.close();
  }
}
