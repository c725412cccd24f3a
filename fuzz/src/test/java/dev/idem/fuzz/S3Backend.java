package dev.idem.fuzz;

import dev.idem.core.proof.ProvenStore;
import dev.idem.core.proof.StoreMarker;
import dev.idem.core.store.ObjectStore;
import dev.idem.store.s3.AwsCredentials;
import dev.idem.store.s3.CredentialsProvider;
import dev.idem.store.s3.PointerMode;
import dev.idem.store.s3.S3Location;
import dev.idem.store.s3.S3ObjectStore;
import dev.idem.store.s3.S3StoreOptions;
import dev.idem.store.s3.S3StoreProver;
import dev.idem.store.s3.S3TestStores;
import dev.idem.store.s3.internal.client.MultipartUpload;
import dev.idem.store.s3.internal.client.ObjectSummary;
import dev.idem.store.s3.internal.client.ObjectVersion;
import dev.idem.store.s3.internal.client.RetryPolicy;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.internal.client.VersionsPage;
import dev.idem.store.s3.testing.HeaderStrippingProxy;
import dev.idem.store.s3.testing.QuirkProxy;
import dev.idem.store.s3.testing.S3ProxyServer;
import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code S3ObjectStore} in {@link PointerMode#LOG} against S3Proxy (whose {@code If-Match} is not
 * atomic, so CAS mode cannot be raced there; docs/DESIGN.md). One versioned bucket per backend, one prefix
 * per scenario. Every replica talks to S3Proxy through its own {@link FaultyHttpProxy}, which plays its
 * fate; readers and the checks talk to S3Proxy directly.
 *
 * <p>Payload {@code D} is published as a multipart upload ({@link #options()}): its CreateMultipartUpload and
 * CompleteMultipartUpload are the {@code POST object} operation, its parts {@code PUT object}, so faults
 * and deaths land between and inside them as in a single PUT.
 *
 * <p>Replica stores are proven as the command proves them ({@code ProvenStore}): each scenario's store
 * is proven once before the replicas start, unless the scenario's hazard is a server that ignores
 * {@code If-None-Match} ({@link Scenario.Hazard#IGNORES_IF_NONE_MATCH}), where every replica must be
 * refused by its probe and nothing may be written. Under {@link Scenario.Hazard#APPLIES_EVERY_COMPLETION}
 * the replicas reach S3Proxy through a gateway that drops {@code If-None-Match} from completions only
 * ({@code QuirkProxy.Quirk.strips("POST")}), so every completion lands as a new version, as moto lands
 * concurrent ones, and that lists a key's versions oldest first ({@code listsVersionsOldestFirst}), as
 * moto lists the writes of one millisecond; the store was proven directly, as moto's probe passes.
 *
 * <p>A backend made with an {@link S3Breakage} has every replica's proxy apply it.
 *
 * <p>Replica clients time out after {@value #REQUEST_TIMEOUT_MS} ms and make two attempts per request,
 * so a single fault exercises the client's own retry (a lost reply, then 412 on the retried create,
 * then recognising its own object) and a repeated one the publisher-level retry.
 */
final class S3Backend implements Backend {
  static final long REQUEST_TIMEOUT_MS = 2500;
  private static final RetryPolicy REPLICA_RETRY = new RetryPolicy(2, Duration.ofMillis(10), Duration.ofMillis(50));

  static final Scenarios.Profile PROFILE = new Scenarios.Profile(FaultyHttpProxy.OPS, FaultyHttpProxy.OPS,
      List.of(Fate.Fault.HTTP_500, Fate.Fault.HTTP_503_SLOW_DOWN, Fate.Fault.HTTP_409_CONFLICT, Fate.Fault.HTTP_TIMEOUT,
          Fate.Fault.CONNECTION_RESET, Fate.Fault.HTTP_BODY_STALL),
      List.of(Fate.Death.SIGKILL, Fate.Death.SIGTERM), 3, 1, 2, 3,
      List.of(new Step("PUT object", true, 1), new Step("PUT pointer-log", false, 1), new Step("PUT pointer-latest", false, 1)),
      List.of(new Step("PUT evidence", false, 1), new Step("POST evidence", false, 1)),
      null, List.of(Scenario.Hazard.IGNORES_IF_NONE_MATCH, Scenario.Hazard.APPLIES_EVERY_COMPLETION), Payloads.LABELS);

  private final S3ProxyServer server;
  private final String bucket;
  private final S3Breakage breakage;

  S3Backend() throws IOException {
    this(S3Breakage.NONE);
  }

  /** A backend whose replicas' proxies carry {@code breakage}: how the suite shows what it finds. */
  S3Backend(S3Breakage breakage) throws IOException {
    server = S3ProxyServer.shared();
    bucket = server.createBucket(true);
    this.breakage = breakage;
  }

  @Override
  public Kind kind() {
    return Kind.S3;
  }

  /** The smallest multipart threshold and part size S3 allows, so payload {@code D} goes multipart in two parts. */
  static S3StoreOptions options() {
    return S3StoreOptions.builder().pointerMode(PointerMode.LOG).multipartThreshold(S3StoreOptions.MIN_PART_SIZE)
        .partSize(S3StoreOptions.MIN_PART_SIZE).build();
  }

  private static S3Client replicaClient(URI endpoint, CredentialsProvider credentials) {
    return S3Client.builder(endpoint, S3ProxyServer.REGION, credentials).pathStyle(true)
        .requestTimeout(Duration.ofMillis(REQUEST_TIMEOUT_MS)).retry(REPLICA_RETRY).build();
  }

  private static S3Location location(String bucket, String prefix, URI endpoint) {
    return new S3Location(bucket, prefix, endpoint, S3ProxyServer.REGION, true);
  }

  /** A replica process's store: endpoint (its proxy), bucket, prefix. */
  static ObjectStore openInChild(List<String> args) {
    URI endpoint = URI.create(args.get(0));
    CredentialsProvider creds = CredentialsProvider.of(AwsCredentials.of(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY));
    return proven(S3TestStores.open(replicaClient(endpoint, creds), location(args.get(1), args.get(2), endpoint), options()));
  }

  /**
   * A replica's store as the command opens it: proven before its first write (S1), by the marker when
   * there is one, else by a probe that refuses a server ignoring a conditional header.
   */
  static ProvenStore proven(S3ObjectStore store) {
    return ProvenStore.wrap(store, S3StoreProver.of(store), "idem-fuzz", Clock.systemUTC());
  }

  @Override
  public Run begin(String namespace) {
    String prefix = namespace + "/";
    String pathPrefix = "/" + bucket + "/" + prefix;
    List<FaultyHttpProxy> proxies = new ArrayList<>();
    return new Run() {
      private HeaderStrippingProxy stripping;
      private QuirkProxy completing;
      private Scenario.Hazard hazard = Scenario.Hazard.NONE;

      /**
       * The store is proven once, as its first writer would, so that replicas read the marker, unless
       * the server ignores {@code If-None-Match}: then every replica talks to S3Proxy through a gateway
       * that strips it, and nobody has proven the store. A server that applies every completion is a
       * gateway stripping it from completions only, which also lists a key's versions oldest first, as
       * moto lists the writes of one millisecond.
       */
      @Override
      public void prepare(Scenario s) throws IOException {
        hazard = s.hazard();
        if (hazard == Scenario.Hazard.IGNORES_IF_NONE_MATCH) {
          stripping = new HeaderStrippingProxy(server, "If-None-Match");
          return;
        }
        if (hazard == Scenario.Hazard.APPLIES_EVERY_COMPLETION) {
          completing = new QuirkProxy(server, QuirkProxy.Quirk.listsVersionsOldestFirst(),
              QuirkProxy.Quirk.strips("POST", Set.of("If-None-Match"), new AtomicInteger()));
        }
        try (ObjectStore o = observer()) {
          proven((S3ObjectStore) o).requireWritable();
        }
      }

      @Override
      public List<String> clearHazard() throws IOException {
        if (completing != null) {
          completing.close();
          return List.of();
        }
        if (stripping == null) {
          return List.of();
        }
        List<String> v = new ArrayList<>();
        for (ObjectSummary o : server.client().listObjects(bucket, prefix, null, null, 1000).objects()) {
          String key = o.key().substring(prefix.length());
          if (!key.startsWith(StoreMarker.PROBE_PREFIX)) {
            v.add("S1: " + key + " was written although the server ignores If-None-Match");
          }
        }
        stripping.close();
        return v;
      }

      private FaultyHttpProxy proxy(Replica replica, StepHook hook) throws IOException {
        Fate.Fault fault = replica.fate() instanceof Fate.Faulted f ? f.fault() : null;
        URI upstream = stripping != null ? stripping.endpoint()
            : completing != null ? completing.endpoint() : server.endpoint();
        FaultyHttpProxy p = new FaultyHttpProxy(upstream, pathPrefix, hook, fault, REQUEST_TIMEOUT_MS + 300, breakage);
        synchronized (proxies) {
          proxies.add(p);
        }
        return p;
      }

      @Override
      public ObjectStore replicaStore(Replica replica, StepHook hook) throws IOException {
        FaultyHttpProxy p = proxy(replica, hook);
        return proven(S3TestStores.open(replicaClient(p.endpoint(), server.credentials()),
            location(bucket, prefix, p.endpoint()), options()));
      }

      @Override
      public List<String> processArgs(Replica replica, StepHook parentHook) throws IOException {
        return List.of(proxy(replica, parentHook).endpoint().toString(), bucket, prefix);
      }

      @Override
      public ObjectStore observer() {
        return S3TestStores.open(server.clientBuilder().build(), location(bucket, prefix, server.endpoint()), options());
      }

      @Override
      public List<String> leftovers() throws IOException {
        List<String> out = new ArrayList<>();
        for (MultipartUpload u : server.client().listMultipartUploads(bucket, prefix, null, null).uploads()) {
          out.add("upload " + u);
        }
        return out;
      }

      @Override
      public boolean documentedTemporary(String leftover) {
        return leftover.startsWith("upload ");
      }

      /**
       * Stops the replicas' proxies, then deletes every version of the scenario's objects, now that it has
       * been checked:
       * S3Proxy keeps every object in its heap, and payload {@code D} is 5 MiB, so without this a long
       * session fills the server's heap and it answers 500 to everyone (seed -7297141968356896115 did,
       * after about a hundred scenarios).
       */
      @Override
      public void close() throws IOException {
        synchronized (proxies) {
          for (FaultyHttpProxy p : proxies) {
            p.close();
          }
        }
        VersionsPage page;
        do {
          // Every version and delete marker goes (the bucket is versioned), so each page starts afresh.
          page = server.client().listVersions(bucket, prefix, null, null, 1000);
          for (ObjectVersion v : page.versions()) {
            server.client().deleteVersion(bucket, v.key(), v.versionId());
          }
        } while (page.truncated());
      }
    };
  }

  @Override
  public void close() {}
}
