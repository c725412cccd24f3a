package dev.idem.store.s3.internal.auth;

import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.CredentialsException;
import dev.idem.store.s3.CredentialsProvider;
import dev.idem.store.s3.internal.http.HttpClients;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The AWS default credential chain: the sources an AWS SDK consults, in the same order, with
 * the result cached and temporary credentials refreshed before they expire.
 *
 * <p>Order (the first source that yields credentials wins):
 *
 * <ol>
 *   <li>environment: {@code AWS_ACCESS_KEY_ID}, {@code AWS_SECRET_ACCESS_KEY},
 *       {@code AWS_SESSION_TOKEN};
 *   <li>profile files: {@code AWS_PROFILE} in {@code ~/.aws/credentials} and
 *       {@code ~/.aws/config} (static keys only: {@code role_arn}/{@code source_profile}
 *       chaining, {@code credential_process} and SSO are not implemented and are reported as
 *       errors, not skipped);
 *   <li>web identity: {@code AWS_WEB_IDENTITY_TOKEN_FILE} + {@code AWS_ROLE_ARN} through STS
 *       {@code AssumeRoleWithWebIdentity};
 *   <li>container: {@code AWS_CONTAINER_CREDENTIALS_RELATIVE_URI} or
 *       {@code AWS_CONTAINER_CREDENTIALS_FULL_URI};
 *   <li>EC2 instance metadata (IMDSv2).
 * </ol>
 *
 * <p>A source that is not configured is skipped; a source that is configured but broken
 * stops the chain with a {@link CredentialsException} naming it, because falling through to a
 * later source would silently sign as a different identity. When no source yields anything
 * the message is {@code no AWS credentials found (tried: environment, profile default, web
 * identity, container, IMDS)}; when every other source was unconfigured and IMDS itself fails (off
 * EC2, a proxy answering 403), the message lists the sources tried and then IMDS's failure.
 *
 * <p>Caching and refresh, and what is atomic:
 *
 * <ul>
 *   <li>Credentials without an expiration are cached for the life of the chain.
 *   <li>Temporary credentials are refreshed by re-walking the chain once they expire within
 *       {@link #REFRESH_BEFORE_EXPIRY}. Only one thread refreshes at a time (a lock); while it
 *       does, other threads keep getting the cached credentials if they have not yet expired,
 *       and wait for the refresh if they have, each at most its own budget ({@link
 *       #resolve(Duration)}; {@link #DEFAULT_WAIT} for {@link #resolve()}). A waiter whose budget
 *       runs out gets a {@link CredentialsException} naming the source the refresh is waiting on,
 *       and leaves the refresh running (it is bounded by that source's own request timeout and
 *       body deadline, and by the budget of the call that started it). A refresh gets what is left of
 *       its caller's budget: an endpoint that never answers is cut there, and the caller gets a
 *       {@link dev.idem.core.store.DeadlineExceededException}.
 *   <li>If a refresh fails while the cached credentials are still unexpired, those are
 *       returned and the refresh is retried no sooner than {@link #RETRY_INTERVAL} later; once
 *       they have expired, the refresh error is thrown.
 *   <li>{@link #resolve()} never returns credentials whose expiration has passed.
 * </ul>
 *
 * <p>Thread-safe. Nothing is logged; {@link #toString()} and {@link #describeSource()} never
 * contain secrets.
 */
public final class CredentialChain implements CredentialsProvider {

  /** How long before expiry temporary credentials are refreshed. */
  public static final Duration REFRESH_BEFORE_EXPIRY = Duration.ofMinutes(5);

  /**
   * How long {@link #resolve()} waits for a refresh in progress in another thread: longer than any
   * one source's refresh takes (IMDS's three requests at 2 s each, STS's 10 s, both with their body
   * deadlines), so it only runs out on a refresh that is stuck.
   */
  public static final Duration DEFAULT_WAIT = Duration.ofSeconds(30);

  /** The least time between two refresh attempts while unexpired credentials are served. */
  static final Duration RETRY_INTERVAL = Duration.ofSeconds(30);

  private final List<CredentialSource> sources;
  private final Clock clock;
  /** The HTTP client this chain owns, which {@link #close} releases; null when it was lent one. */
  private final HttpClient ownHttp;
  private final ReentrantLock refreshLock = new ReentrantLock();

  /** The last credentials resolved; written only while holding {@link #refreshLock}. */
  private volatile SourcedCredentials current;

  /** No refresh attempt before this instant; written only while holding the lock. */
  private volatile Instant nextAttempt = Instant.MIN;

  /** The source a refresh is loading now, for a waiter's message; written only while holding the lock. */
  private volatile CredentialSource loading;

  CredentialChain(List<CredentialSource> sources, Clock clock) {
    this(sources, clock, null);
  }

  private CredentialChain(List<CredentialSource> sources, Clock clock, HttpClient ownHttp) {
    this.ownHttp = ownHttp;
    this.sources = List.copyOf(sources);
    this.clock = Objects.requireNonNull(clock, "clock");
    if (this.sources.isEmpty()) {
      throw new IllegalArgumentException("a credential chain needs at least one source");
    }
  }

  /**
   * The standard chain over the given environment.
   *
   * @param env environment variables (tests pass their own map)
   * @param home the user's home directory, for {@code ~/.aws/credentials} and {@code ~/.aws/config}
   * @param http the client for STS, the container endpoint and IMDS; give it a short connect
   *     timeout (as {@link #fromSystem()} does) so IMDS fails fast off EC2
   * @param clock a UTC clock, for expiry and the default role session name
   */
  public static CredentialChain standard(
      Map<String, String> env, Path home, HttpClient http, Clock clock) {
    return standard(env, home, http, clock, ContainerCredentials.DEFAULT_BASE,
        InstanceMetadataCredentials.DEFAULT_ENDPOINT);
  }

  /**
   * The standard chain with the two link-local endpoints replaced, so tests can stand a
   * local server in for the ECS agent and for IMDS.
   */
  static CredentialChain standard(Map<String, String> env, Path home, HttpClient http,
      Clock clock, URI containerBase, URI imdsEndpoint) {
    return standard(env, home, http, clock, containerBase, imdsEndpoint, false);
  }

  /**
   * {@link #standard(Map, Path, HttpClient, Clock)}, the chain owning {@code http}: {@link #close}
   * releases it. A process gives it {@link #defaultHttp()}, made only if a source needs it.
   */
  public static CredentialChain owning(Map<String, String> env, Path home, HttpClient http, Clock clock) {
    return standard(env, home, http, clock, ContainerCredentials.DEFAULT_BASE,
        InstanceMetadataCredentials.DEFAULT_ENDPOINT, true);
  }

  private static CredentialChain standard(Map<String, String> env, Path home, HttpClient http,
      Clock clock, URI containerBase, URI imdsEndpoint, boolean ownsHttp) {
    Objects.requireNonNull(home, "home");
    Objects.requireNonNull(http, "http");
    Objects.requireNonNull(clock, "clock");
    EnvVars vars = new EnvVars(Map.copyOf(withoutNulls(env)));
    return new CredentialChain(List.of(
        new EnvironmentCredentials(vars),
        new ProfileCredentials(vars, home),
        new WebIdentityCredentials(vars, home, http, clock),
        new ContainerCredentials(vars, home, http, containerBase),
        new InstanceMetadataCredentials(vars, http, imdsEndpoint)), clock, ownsHttp ? http : null);
  }

  /**
   * Releases the HTTP client this chain owns ({@link #owning}); one merely given to it is the giver's.
   * Credentials already cached are still returned until they expire; a fetch afterwards fails, saying
   * the client was released.
   */
  @Override
  public void close() {
    if (ownHttp == null) {
      return;
    }
    try {
      HttpClients.release(ownHttp, Duration.ofSeconds(1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The standard chain over this process: {@code System.getenv()}, the {@code user.home}
   * directory, {@link #defaultHttp()} (owned: {@link #close} releases it), and {@link Clock#systemUTC()}.
   */
  public static CredentialChain fromSystem() {
    return owning(System.getenv(), Path.of(System.getProperty("user.home")), defaultHttp(), Clock.systemUTC());
  }

  /**
   * The client for the chain's HTTP sources (STS, the container endpoint, IMDS): a 1 s connect timeout,
   * no redirects, the JDK's default TLS, built on its first request only, since credentials from the
   * environment or a profile file need no HTTP and setting up TLS is most of a client's cost.
   */
  public static HttpClient defaultHttp() {
    return HttpClients.lazily(() -> HttpClient.newBuilder()
        .connectTimeout(Duration.ofSeconds(1))
        .followRedirects(HttpClient.Redirect.NEVER)
        .build());
  }

  /**
   * Returns credentials valid now, from the cache or by walking the chain, waiting at most {@link
   * #DEFAULT_WAIT} for a refresh in progress in another thread.
   *
   * @throws CredentialsException when no source yields credentials or a source is broken, or the wait
   *     ran out
   * @throws InterruptedIOException when interrupted while waiting for a refresh
   */
  @Override
  public AwsCredentials resolve() throws IOException {
    return resolve(DEFAULT_WAIT);
  }

  /**
   * As {@link #resolve()}, taking at most {@code maxWait}: waiting for a refresh in progress in another
   * thread, or refreshing (a source that asks an endpoint is cut where {@code maxWait} ends).
   *
   * @param maxWait {@code >= 0}; zero never waits
   * @throws CredentialsException when no source yields credentials or a source is broken, or the wait
   *     ran out (the message names the source the refresh is waiting on)
   * @throws dev.idem.core.store.DeadlineExceededException when a refresh this call made ran out of
   *     {@code maxWait} waiting for an endpoint
   * @throws InterruptedIOException when interrupted while waiting for a refresh
   */
  @Override
  public AwsCredentials resolve(Duration maxWait) throws IOException {
    Objects.requireNonNull(maxWait, "maxWait");
    if (maxWait.isNegative()) {
      throw new IllegalArgumentException("maxWait must be >= 0, was " + maxWait);
    }
    long end = System.nanoTime() + maxWait.toNanos();
    SourcedCredentials cached = current;
    if (cached != null && !needsRefresh(cached)) {
      return cached.credentials();
    }
    boolean usable = cached != null && !isExpired(cached);
    if (usable) {
      if (clock.instant().isBefore(nextAttempt) || !refreshLock.tryLock()) {
        return cached.credentials();
      }
    } else {
      try {
        if (!refreshLock.tryLock(maxWait.toNanos(), TimeUnit.NANOSECONDS)) {
          throw waitedTooLong(maxWait);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while waiting for a credential refresh");
      }
    }
    try {
      return refreshLocked(end);
    } finally {
      refreshLock.unlock();
    }
  }

  private CredentialsException waitedTooLong(Duration maxWait) {
    CredentialSource at = loading;
    return new CredentialsException("a credential refresh in progress in another thread did not finish within "
        + (maxWait.toMillis() % 1000 == 0 ? maxWait.toSeconds() + "s" : maxWait.toMillis() + "ms")
        + (at == null ? "" : ": it is waiting on " + at.name() + " (its own request timeout ends it)"));
  }

  private AwsCredentials refreshLocked(long end) throws IOException {
    SourcedCredentials cached = current;
    if (cached != null && !needsRefresh(cached)) {
      return cached.credentials();
    }
    SourcedCredentials fresh;
    try {
      fresh = walk(end);
    } catch (IOException e) {
      if (cached != null && !isExpired(cached)) {
        nextAttempt = clock.instant().plus(RETRY_INTERVAL);
        return cached.credentials();
      }
      throw e;
    }
    if (isExpired(fresh)) {
      throw new CredentialsException(fresh.description() + ": credentials expired at "
          + fresh.credentials().expiration());
    }
    current = fresh;
    // A source that hands out credentials already inside the refresh window is asked
    // again no sooner than RETRY_INTERVAL, rather than on every request.
    nextAttempt = needsRefresh(fresh) ? clock.instant().plus(RETRY_INTERVAL) : Instant.MIN;
    return fresh.credentials();
  }

  private SourcedCredentials walk(long end) throws IOException {
    List<String> tried = new ArrayList<>(sources.size());
    for (CredentialSource source : sources) {
      Optional<SourcedCredentials> found;
      loading = source;
      try {
        found = source.load(Duration.ofNanos(Math.max(0, end - System.nanoTime())));
      } catch (CredentialsException e) {
        if (source instanceof InstanceMetadataCredentials && !tried.isEmpty()) {
          // IMDS is asked on every machine, configured or not; off EC2 (or behind a proxy that refuses
          // it) its failure is the chain's last word, so it says what else was tried first.
          throw new CredentialsException(nothingFound(tried) + "; then " + e.getMessage(), e);
        }
        throw e;
      } finally {
        loading = null;
      }
      if (found.isPresent()) {
        return found.get();
      }
      tried.add(source.triedLabel());
    }
    throw new CredentialsException(nothingFound(tried));
  }

  private static String nothingFound(List<String> tried) {
    return "no AWS credentials found (tried: " + String.join(", ", tried) + ")";
  }

  private boolean needsRefresh(SourcedCredentials c) {
    return c.credentials().expiresWithin(REFRESH_BEFORE_EXPIRY, clock);
  }

  private boolean isExpired(SourcedCredentials c) {
    return c.credentials().expiresWithin(Duration.ZERO, clock);
  }

  /**
   * Where the last resolved credentials came from, such as {@code "environment"} or
   * {@code "profile default (~/.aws/credentials)"}; {@code "unresolved"} before the first
   * successful {@link #resolve()}.
   */
  public String describeSource() {
    SourcedCredentials c = current;
    return c == null ? "unresolved" : c.description();
  }

  /** The sources in order and, once resolved, where the credentials came from. */
  @Override
  public String toString() {
    List<String> names = new ArrayList<>(sources.size());
    sources.forEach(s -> names.add(s.name()));
    return "CredentialChain[" + String.join(", ", names) + "; source=" + describeSource() + "]";
  }

  private static Map<String, String> withoutNulls(Map<String, String> env) {
    Objects.requireNonNull(env, "env");
    Map<String, String> out = new HashMap<>();
    env.forEach((k, v) -> {
      if (k != null && v != null) {
        out.put(k, v);
      }
    });
    return out;
  }
}
