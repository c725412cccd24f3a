package dev.idem.store.s3.internal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.CredentialsException;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Chain order, the "nothing found" message, caching and refresh, concurrency, and secrecy. */
class CredentialChainTest {

  private static final String NOTHING_FOUND = "no AWS credentials found"
      + " (tried: environment, profile default, web identity, container, IMDS)";

  @TempDir
  Path home;

  private LocalServer server;
  private final Map<String, String> env = new HashMap<>();

  @BeforeEach
  void setUp() {
    server = LocalServer.start();
  }

  @AfterEach
  void tearDown() {
    server.close();
  }

  private CredentialChain standardChain() {
    return Fixtures.chain(env, home, Fixtures.FIXED, server.uri(), Fixtures.unreachable());
  }

  private void profileFile(String id, String secret) throws IOException {
    Files.createDirectories(home.resolve(".aws"));
    Files.writeString(home.resolve(".aws/credentials"),
        "[default]\naws_access_key_id = " + id + "\naws_secret_access_key = " + secret + "\n");
  }

  private void environment(String id, String secret) {
    env.put("AWS_ACCESS_KEY_ID", id);
    env.put("AWS_SECRET_ACCESS_KEY", secret);
  }

  private void webIdentity() throws IOException {
    Path token = Files.writeString(home.resolve("web-token"), Fixtures.WEB_TOKEN);
    env.put("AWS_WEB_IDENTITY_TOKEN_FILE", token.toString());
    env.put("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/r");
    env.put("AWS_ENDPOINT_URL_STS", server.uri() + "/sts");
    server.route("POST", "/sts", 200, Fixtures.stsCredentials("ASIASTS", Fixtures.SECRET,
        Fixtures.TOKEN, Fixtures.NOW.plus(Duration.ofHours(1))));
  }

  private void container() {
    env.put("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "/container");
    server.route("GET", "/container", 200, Fixtures.jsonCredentials("ASIACONTAINER",
        Fixtures.SECRET, Fixtures.TOKEN, Fixtures.NOW.plus(Duration.ofHours(6))));
  }

  @Nested
  class Order {

    @Test
    void resolve_environmentWinsOverProfile() throws Exception {
      environment("AKIDENV", Fixtures.SECRET);
      profileFile("AKIDPROFILE", "other");
      CredentialChain chain = standardChain();

      assertEquals("AKIDENV", chain.resolve().accessKeyId());
      assertEquals("environment", chain.describeSource());
    }

    @Test
    void resolve_profileWinsOverWebIdentity() throws Exception {
      profileFile("AKIDPROFILE", Fixtures.SECRET);
      webIdentity();
      CredentialChain chain = standardChain();

      assertEquals("AKIDPROFILE", chain.resolve().accessKeyId());
      assertEquals("profile default (~/.aws/credentials)", chain.describeSource());
      assertTrue(server.requests().isEmpty());
    }

    @Test
    void resolve_webIdentityWinsOverContainer() throws Exception {
      webIdentity();
      container();
      CredentialChain chain = standardChain();

      assertEquals("ASIASTS", chain.resolve().accessKeyId());
      assertEquals(List.of("/sts"), server.requests().stream().map(r -> r.path()).toList());
    }

    @Test
    void resolve_containerWinsOverImds() throws Exception {
      container();
      try (LocalServer imds = LocalServer.start()) {
        CredentialChain chain =
            Fixtures.chain(env, home, Fixtures.FIXED, server.uri(), imds.uri());

        assertEquals("ASIACONTAINER", chain.resolve().accessKeyId());
        assertEquals("container (" + server.uri() + ")", chain.describeSource());
        assertTrue(imds.requests().isEmpty());
      }
    }

    @Test
    void resolve_imdsWhenNothingElse() throws Exception {
      try (LocalServer imds = LocalServer.start()) {
        imds.route("PUT", "/latest/api/token", 200, "t");
        imds.route("GET", "/latest/meta-data/iam/security-credentials/", 200, "role");
        imds.route("GET", "/latest/meta-data/iam/security-credentials/role", 200,
            Fixtures.jsonCredentials("ASIAIMDS", Fixtures.SECRET, Fixtures.TOKEN,
                Fixtures.NOW.plus(Duration.ofHours(6))));
        CredentialChain chain =
            Fixtures.chain(env, home, Fixtures.FIXED, server.uri(), imds.uri());

        assertEquals("ASIAIMDS", chain.resolve().accessKeyId());
        assertEquals("IMDS (role role)", chain.describeSource());
      }
    }

    @Test
    void resolve_imdsRefusesWhenNothingElse_listsTheSourcesTried() throws Exception {
      try (LocalServer imds = LocalServer.start()) {
        imds.route("PUT", "/latest/api/token", 403, "");
        CredentialChain chain =
            Fixtures.chain(env, home, Fixtures.FIXED, server.uri(), imds.uri());

        CredentialsException e = assertThrows(CredentialsException.class, chain::resolve);

        assertEquals("no AWS credentials found (tried: environment, profile default, web identity,"
            + " container); then IMDS: token request answered HTTP 403", e.getMessage());
      }
    }

    @Test
    void resolve_brokenEarlierSource_stopsTheChain() throws Exception {
      env.put("AWS_ACCESS_KEY_ID", "AKIDHALF");
      profileFile("AKIDPROFILE", Fixtures.SECRET);

      CredentialsException e =
          assertThrows(CredentialsException.class, () -> standardChain().resolve());

      assertEquals("environment: AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not",
          e.getMessage());
    }

    @Test
    void resolve_nothingConfiguredAndImdsUnreachable_listsWhatWasTried() {
      CredentialsException e =
          assertThrows(CredentialsException.class, () -> standardChain().resolve());

      assertEquals(NOTHING_FOUND, e.getMessage());
    }

    @Test
    void resolve_namedProfileWithoutKeys_isListedByName() throws Exception {
      Files.createDirectories(home.resolve(".aws"));
      Files.writeString(home.resolve(".aws/config"), "[profile ci]\nregion = eu-west-1\n");
      env.put("AWS_PROFILE", "ci");
      env.put("AWS_EC2_METADATA_DISABLED", "true");

      CredentialsException e =
          assertThrows(CredentialsException.class, () -> standardChain().resolve());

      assertEquals("no AWS credentials found (tried: environment, profile ci, web identity,"
          + " container, IMDS (disabled by AWS_EC2_METADATA_DISABLED))", e.getMessage());
    }

    @Test
    void describeSource_beforeResolve_isUnresolved() {
      assertEquals("unresolved", standardChain().describeSource());
    }
  }

  /** A source answering from a script of results, counting its loads. */
  private static final class ScriptedSource implements CredentialSource {
    private final List<Object> script = new ArrayList<>();
    private final AtomicInteger loads = new AtomicInteger();

    ScriptedSource then(Object result) {
      script.add(result);
      return this;
    }

    @Override
    public String name() {
      return "scripted";
    }

    @Override
    public Optional<SourcedCredentials> load() throws IOException {
      int n = loads.getAndIncrement();
      Object result = script.get(Math.min(n, script.size() - 1));
      if (result instanceof IOException e) {
        throw e;
      }
      return Optional.of(new SourcedCredentials((AwsCredentials) result, "scripted"));
    }
  }

  private static AwsCredentials temporary(String id, Instant expiration) {
    return new AwsCredentials(id, Fixtures.SECRET, Fixtures.TOKEN, expiration);
  }

  @Nested
  class Caching {

    @Test
    void resolve_staticCredentials_cachedForever() throws Exception {
      profileFile("AKIDONE", Fixtures.SECRET);
      MutableClock clock = new MutableClock(Fixtures.NOW);
      CredentialChain chain =
          Fixtures.chain(env, home, clock, server.uri(), Fixtures.unreachable());
      AwsCredentials first = chain.resolve();

      profileFile("AKIDTWO", Fixtures.SECRET);
      clock.advance(Duration.ofDays(400));

      assertSame(first, chain.resolve());
    }

    @Test
    void resolve_temporaryCredentials_refreshedFiveMinutesBeforeExpiry() throws Exception {
      MutableClock clock = new MutableClock(Fixtures.NOW);
      Instant expiry = Fixtures.NOW.plus(Duration.ofHours(1));
      ScriptedSource source = new ScriptedSource()
          .then(temporary("ONE", expiry))
          .then(temporary("TWO", expiry.plus(Duration.ofHours(1))));
      CredentialChain chain = new CredentialChain(List.of(source), clock);

      assertEquals("ONE", chain.resolve().accessKeyId());
      clock.advance(Duration.ofMinutes(54));
      assertEquals("ONE", chain.resolve().accessKeyId());
      clock.advance(Duration.ofMinutes(1));
      assertEquals("TWO", chain.resolve().accessKeyId());
      assertEquals(2, source.loads.get());
    }

    @Test
    void resolve_refreshFailsBeforeExpiry_keepsOldThenFailsAfterExpiry() throws Exception {
      MutableClock clock = new MutableClock(Fixtures.NOW);
      Instant expiry = Fixtures.NOW.plus(Duration.ofHours(1));
      ScriptedSource source = new ScriptedSource()
          .then(temporary("ONE", expiry))
          .then(new CredentialsException("scripted: STS is down"));
      CredentialChain chain = new CredentialChain(List.of(source), clock);
      chain.resolve();

      clock.advance(Duration.ofMinutes(57));
      assertEquals("ONE", chain.resolve().accessKeyId());
      assertEquals("ONE", chain.resolve().accessKeyId());
      assertEquals(2, source.loads.get(), "no retry within the retry interval");
      clock.advance(CredentialChain.RETRY_INTERVAL);
      assertEquals("ONE", chain.resolve().accessKeyId());
      assertEquals(3, source.loads.get());
      clock.advance(Duration.ofMinutes(3));

      CredentialsException e = assertThrows(CredentialsException.class, chain::resolve);
      assertEquals("scripted: STS is down", e.getMessage());
    }

    @Test
    void resolve_sourceReturnsExpiredCredentials_isError() {
      ScriptedSource source = new ScriptedSource()
          .then(temporary("OLD", Fixtures.NOW.minusSeconds(1)));
      CredentialChain chain = new CredentialChain(List.of(source), Fixtures.FIXED);

      CredentialsException e = assertThrows(CredentialsException.class, chain::resolve);

      assertEquals("scripted: credentials expired at 2025-12-31T23:59:59Z", e.getMessage());
    }
  }

  @Nested
  class Concurrency {

    /** A source whose first load blocks until released, counting concurrent loads. */
    private static final class BlockingSource implements CredentialSource {
      final CountDownLatch entered = new CountDownLatch(1);
      final CountDownLatch release = new CountDownLatch(1);
      final AtomicInteger loads = new AtomicInteger();
      final AtomicInteger inside = new AtomicInteger();
      final AtomicInteger maxInside = new AtomicInteger();
      final AtomicReference<AwsCredentials> next = new AtomicReference<>();

      @Override
      public String name() {
        return "blocking";
      }

      @Override
      public Optional<SourcedCredentials> load() throws IOException {
        loads.incrementAndGet();
        maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
        try {
          entered.countDown();
          if (!release.await(10, TimeUnit.SECONDS)) {
            throw new IOException("test never released the source");
          }
          return Optional.of(new SourcedCredentials(next.get(), "blocking"));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException(e);
        } finally {
          inside.decrementAndGet();
        }
      }
    }

    @Test
    void resolve_manyThreadsWithoutCache_oneLoadAndAllGetIt() throws Exception {
      BlockingSource source = new BlockingSource();
      source.next.set(temporary("ONLY", Fixtures.NOW.plus(Duration.ofHours(1))));
      CredentialChain chain = new CredentialChain(List.of(source), Fixtures.FIXED);
      ExecutorService pool = Executors.newFixedThreadPool(16);
      try {
        List<Future<AwsCredentials>> results = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
          results.add(pool.submit(() -> chain.resolve()));
        }
        assertTrue(source.entered.await(10, TimeUnit.SECONDS));
        source.release.countDown();
        for (Future<AwsCredentials> result : results) {
          assertEquals("ONLY", result.get(10, TimeUnit.SECONDS).accessKeyId());
        }
      } finally {
        pool.shutdownNow();
      }
      assertEquals(1, source.loads.get());
      assertEquals(1, source.maxInside.get());
    }

    @Test
    void resolve_whileRefreshing_othersGetUnexpiredCachedCredentials() throws Exception {
      MutableClock clock = new MutableClock(Fixtures.NOW);
      AtomicReference<BlockingSource> current = new AtomicReference<>();
      CredentialSource delegating = new CredentialSource() {
        @Override
        public String name() {
          return "delegating";
        }

        @Override
        public Optional<SourcedCredentials> load() throws IOException {
          BlockingSource s = current.get();
          return s == null
              ? Optional.of(new SourcedCredentials(
                  temporary("OLD", Fixtures.NOW.plus(Duration.ofHours(1))), "d"))
              : s.load();
        }
      };
      CredentialChain chain = new CredentialChain(List.of(delegating), clock);
      AwsCredentials old = chain.resolve();
      BlockingSource refresher = new BlockingSource();
      refresher.next.set(temporary("NEW", Fixtures.NOW.plus(Duration.ofHours(2))));
      current.set(refresher);
      clock.advance(Duration.ofMinutes(58));
      ExecutorService pool = Executors.newSingleThreadExecutor();
      try {
        Future<AwsCredentials> refreshing = pool.submit(() -> chain.resolve());
        assertTrue(refresher.entered.await(10, TimeUnit.SECONDS));

        assertSame(old, chain.resolve(), "a concurrent caller must not wait");

        refresher.release.countDown();
        AwsCredentials fresh = refreshing.get(10, TimeUnit.SECONDS);
        assertEquals("NEW", fresh.accessKeyId());
        assertNotSame(old, chain.resolve());
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Nested
  class Secrecy {

    private String messages(Throwable t) {
      StringBuilder all = new StringBuilder();
      for (Throwable c = t; c != null; c = c.getCause()) {
        all.append(c).append('\n');
      }
      return all.toString();
    }

    private void assertNoSecret(String text) {
      for (String secret : List.of(Fixtures.SECRET, Fixtures.TOKEN, Fixtures.WEB_TOKEN)) {
        assertFalse(text.contains(secret), () -> "leaked a secret: " + text);
      }
    }

    @Test
    void toString_chainAndCredentials_neverContainSecrets() throws Exception {
      webIdentity();
      CredentialChain chain = standardChain();
      AwsCredentials c = chain.resolve();

      assertNoSecret(chain.toString());
      assertNoSecret(c.toString());
      assertNoSecret(chain.describeSource());
      assertTrue(chain.toString().contains("web identity"), chain.toString());
    }

    @Test
    void exceptions_brokenSources_neverContainSecrets() throws Exception {
      List<Map<String, String>> broken = new ArrayList<>();
      broken.add(Map.of("AWS_SECRET_ACCESS_KEY", Fixtures.SECRET));
      broken.add(Map.of("AWS_SESSION_TOKEN", Fixtures.TOKEN));
      Path token = Files.writeString(home.resolve("t"), Fixtures.WEB_TOKEN);
      server.route("POST", "/sts-error", 403, "<ErrorResponse><Error><Code>AccessDenied"
          + "</Code><Message>token " + Fixtures.WEB_TOKEN + " rejected</Message>"
          + "</Error></ErrorResponse>");
      broken.add(Map.of("AWS_WEB_IDENTITY_TOKEN_FILE", token.toString(),
          "AWS_ROLE_ARN", "arn:aws:iam::1:role/r",
          "AWS_ENDPOINT_URL_STS", server.uri() + "/sts-error"));
      server.route("GET", "/bad-json", 200, "{\"SecretAccessKey\":\"" + Fixtures.SECRET
          + "\",\"Token\":\"" + Fixtures.TOKEN + "\"");
      broken.add(Map.of("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "/bad-json",
          "AWS_CONTAINER_AUTHORIZATION_TOKEN", Fixtures.TOKEN));
      broken.add(Map.of("AWS_CONTAINER_CREDENTIALS_FULL_URI",
          "http://evil.example/?token=" + Fixtures.TOKEN));

      for (Map<String, String> vars : broken) {
        CredentialChain chain = Fixtures.chain(vars, home, Fixtures.FIXED, server.uri(),
            Fixtures.unreachable());
        CredentialsException e = assertThrows(CredentialsException.class, chain::resolve,
            vars.keySet().toString());
        assertNoSecret(messages(e));
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
      }
    }
  }

  @Nested
  class FromSystem {

    @Test
    void fromSystem_buildsWithoutResolving() {
      CredentialChain chain = CredentialChain.fromSystem();

      assertEquals("unresolved", chain.describeSource());
      assertTrue(chain.toString().startsWith("CredentialChain[environment, profile "),
          chain.toString());
    }
  }

  @Test
  void standard_nullValuesInEnvironment_areIgnored() throws Exception {
    Map<String, String> withNull = new HashMap<>();
    withNull.put("AWS_ACCESS_KEY_ID", null);
    withNull.put("AWS_EC2_METADATA_DISABLED", "true");

    CredentialsException e = assertThrows(CredentialsException.class, () -> Fixtures.chain(
        withNull, home, Fixtures.FIXED, URI.create("http://127.0.0.1:1"),
        Fixtures.unreachable()).resolve());

    assertTrue(e.getMessage().startsWith("no AWS credentials found"), e.getMessage());
  }
}
