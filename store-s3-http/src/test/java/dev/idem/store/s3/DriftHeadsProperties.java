package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Sha256;
import dev.idem.core.Window;
import dev.idem.core.scan.DivergenceScan;
import dev.idem.core.scan.KeyVerdict;
import dev.idem.core.scan.SchemaOverlap;
import dev.idem.core.scan.WindowDrift;
import dev.idem.core.store.HistoryQuery;
import dev.idem.store.s3.internal.client.RetryPolicy;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.testing.FakeS3Server;
import dev.idem.store.s3.testing.ListingBucket;
import dev.idem.store.s3.testing.ListingBucket.Version;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;

/**
 * What judging keying drift costs on S3, where a listing carries no metadata and a key's recorded schema
 * takes a HEAD: over generated buckets (windows of one key and of many, schema bumps, keys whose schema
 * was never recorded, divergent rewrites with and without evidence, delete markers, legacy fixed paths)
 * on a fake S3 server that counts what it is asked ({@link ListingBucket}), the scan's HEADs stay within a
 * small allowance per finding it reports, never per key:
 *
 * <ul>
 *   <li>a divergent or republished key: one HEAD per distinct content and per recorded attempt;
 *   <li>a window of several keys, whatever it is reported as (drift with a schema, drift judged whole,
 *       or the overlap of a schema bump): at most {@link #READS_PER_WINDOW} HEADs.
 * </ul>
 *
 * Every window of several keys is reported as one of those three, so a key alone in its window and a
 * window of a thousand partitions cost the same: nothing, and at most three HEADs. And the verdicts stay
 * those the drift rule gives with every schema known (the generated truth): no drift hidden, no
 * position claimed that the bucket does not hold, a schema bump's overlap not called drift. One fixed
 * example states the point without generation: twelve times as many keys a window, not one HEAD more.
 */
class DriftHeadsProperties {
  /** Schema reads a window of several keys may cost (docs/DESIGN.md, "The drift rule"). */
  static final int READS_PER_WINDOW = 3;

  private static final long NOW = 1_726_000_000L;
  private static final Clock CLOCK = Clock.fixed(Instant.ofEpochSecond(NOW), ZoneOffset.UTC);
  private static FakeS3Server server;

  @BeforeContainer
  static void start() throws IOException {
    server = new FakeS3Server();
  }

  @AfterContainer
  static void stop() throws IOException {
    server.close();
  }

  /**
   * One key of a window.
   *
   * @param schema the schema its publishes record, {@code null} for none (an older idem, another tool)
   * @param versions how many times it was written
   * @param divergent whether a later write carried other bytes
   * @param evidence whether a divergent attempt left evidence under {@code _idem/evidence/}
   * @param deleted whether its first version was deleted (gc) and the key published again
   */
  record Key(Integer schema, int versions, boolean divergent, boolean evidence, boolean deleted) {}

  /** A pipeline: its windows, each the keys written to it. */
  record Pipeline(String name, List<List<Key>> windows) {}

  /** A bucket and how it is scanned: its page size, and how many keys and listings are in flight at once. */
  record Shape(String storePrefix, List<Pipeline> pipelines, int legacy, int pageSize, int parallelism) {}

  @Provide
  Arbitrary<Shape> shapes() {
    Arbitrary<Integer> schema = Arbitraries.frequencyOf(Tuple.of(10, Arbitraries.just(1)),
        Tuple.of(4, Arbitraries.just(2)), Tuple.of(2, Arbitraries.just(3)), Tuple.of(1, Arbitraries.just(4)))
        .injectNull(0.08);
    Arbitrary<Key> key = Combinators.combine(schema, Arbitraries.integers().between(1, 3),
        Arbitraries.frequency(Tuple.of(9, false), Tuple.of(1, true)), Arbitraries.of(false, true),
        Arbitraries.frequency(Tuple.of(12, false), Tuple.of(1, true))).as(Key::new);
    // Windows of one key (the steady state) and of many (partitions, drift), in runs as pipelines have them.
    Arbitrary<List<Key>> window = Arbitraries.frequencyOf(Tuple.of(5, key.list().ofSize(1)),
        Tuple.of(2, key.list().ofMinSize(2).ofMaxSize(3)), Tuple.of(2, key.list().ofMinSize(4).ofMaxSize(8)));
    Arbitrary<Pipeline> pipeline = Combinators.combine(Arbitraries.of("orders", "b", "p1", "zz-top"),
        window.list().ofMinSize(1).ofMaxSize(25)).as(Pipeline::new);
    return Combinators.combine(Arbitraries.of("", "st/"),
        pipeline.list().ofMinSize(1).ofMaxSize(3).uniqueElements(Pipeline::name), Arbitraries.integers().between(0, 8),
        Arbitraries.of(3, 7, 25, 1000), Arbitraries.integers().between(1, 4)).as(Shape::new);
  }

  @Property(tries = 80)
  void scan_anyBucketShape_headsWithinTheAllowanceOfWhatIsReported(@ForAll("shapes") Shape shape) throws IOException {
    Built b = build(shape);
    Reported r = scan(b.bucket, shape);

    long allowance = r.keyHeads + (long) READS_PER_WINDOW * r.windows.size();
    assertTrue(r.heads <= allowance, r.heads + " HEADs for " + r.keyHeads + " allowed for the keys reported and "
        + r.windows.size() + " windows reported × " + READS_PER_WINDOW + "; keys " + b.keys + ", windows of several keys "
        + b.truth.size());
    Statistics.label("HEADs").collect(r.heads == 0 ? "none" : r.heads <= 10 ? "1-10" : "more");
    Statistics.label("windows of several keys").collect(b.truth.isEmpty() ? "none" : b.truth.size() <= 5 ? "1-5" : "more");
  }

  /**
   * A scan that does not judge drift ({@code idem scan} without {@code --fail-on-drift}) reads no schema:
   * its HEADs are those of the keys it reports alone, and every window of several keys is reported as
   * drift judged whole, or, where evidence (HEADed anyway) showed its keys' schemas, as those schemas
   * say; no drift hidden.
   */
  @Property(tries = 60)
  void scan_withoutSchemaReads_headsOnlyForTheKeysReported(@ForAll("shapes") Shape shape) throws IOException {
    Built b = build(shape);
    Reported r = scan(b.bucket, shape, false);

    assertTrue(r.heads <= r.keyHeads, r.heads + " HEADs for " + r.keyHeads + " allowed for the keys reported; "
        + "windows of several keys " + b.truth.size());
    for (Map.Entry<String, List<Integer>> w : b.truth.entrySet()) {
      String reported = r.windows.get(w.getKey());
      Map<Integer, Integer> perSchema = new HashMap<>();
      w.getValue().stream().filter(Objects::nonNull).forEach(x -> perSchema.merge(x, 1, Integer::sum));
      boolean drift = perSchema.values().stream().anyMatch(n -> n > 1) || w.getValue().contains(null);
      assertTrue(reported != null, w + " is reported: " + r.windows);
      if (drift) {
        assertEquals("drift", reported, w + " holds drift or a key of no recorded schema");
      }
    }
  }

  @Example
  void scan_moreKeysAWindow_noMoreHeads() throws IOException {
    // The same windows, first of 5 partitions each, then of 60, spanning many pages, beside lone keys.
    long[] heads = new long[2];
    int[] perWindow = {5, 60};
    for (int i = 0; i < 2; i++) {
      Key partition = new Key(1, 1, false, false, false);
      List<List<Key>> partitioned = new ArrayList<>();
      List<List<Key>> lone = new ArrayList<>();
      for (int w = 0; w < 12; w++) {
        partitioned.add(Collections.nCopies(perWindow[i], partition));
        lone.add(List.of(partition));
      }
      Shape shape = new Shape("", List.of(new Pipeline("orders", partitioned), new Pipeline("zz-top", lone)), 0, 25, 4);
      Reported r = scan(build(shape).bucket, shape);
      assertEquals(12, r.windows.size(), "every window of partitions is drift: " + r.windows);
      heads[i] = r.heads;
    }
    assertEquals(2 * 12, heads[0], "two schema reads a window of one schema");
    assertEquals(heads[0], heads[1], "HEADs for windows of " + perWindow[0] + " keys and of " + perWindow[1]);
  }

  @Property(tries = 80)
  void scan_anyBucketShape_driftAsTheRuleJudgesItWithEverySchemaKnown(@ForAll("shapes") Shape shape)
      throws IOException {
    Built b = build(shape);
    Reported r = scan(b.bucket, shape);
    for (Map.Entry<String, List<Integer>> w : b.truth.entrySet()) {
      List<Integer> schemas = w.getValue();
      Map<Integer, Integer> perSchema = new HashMap<>();
      schemas.stream().filter(Objects::nonNull).forEach(s -> perSchema.merge(s, 1, Integer::sum));
      boolean drift = perSchema.values().stream().anyMatch(n -> n > 1);
      boolean unknown = schemas.contains(null);
      String reported = r.windows.get(w.getKey());
      if (drift || unknown) {
        assertTrue(reported != null && reported.startsWith("drift"), w + " holds drift or a key of no recorded "
            + "schema, reported as " + reported);
      }
      if (!drift && !unknown && schemas.size() <= READS_PER_WINDOW) {
        assertEquals("overlap", reported, w + ": one key per schema, within the reads a window may cost");
      }
    }
    for (Map.Entry<String, String> reported : r.windows.entrySet()) {
      assertTrue(b.truth.containsKey(reported.getKey()), "a window of one key reported: " + reported);
    }
    for (WindowDrift d : r.drifts) {
      if (d.schema() != null) {
        for (String k : d.keys()) {
          assertEquals(d.schema(), b.schemas.get(k), "a key listed at position " + d.schema() + ": " + d);
        }
      }
    }
  }

  /** A generated bucket, the keys' recorded schemas, and the schemas of each window of several keys. */
  record Built(ListingBucket bucket, int keys, Map<String, Integer> schemas, Map<String, List<Integer>> truth) {}

  /**
   * What a scan reported and what it cost: {@code windows} maps each reported window to "drift" or
   * "overlap"; {@code keyHeads} is the allowance of the keys reported.
   */
  record Reported(long heads, long keyHeads, Map<String, String> windows, List<WindowDrift> drifts) {}

  private static Reported scan(ListingBucket bucket, Shape shape) throws IOException {
    return scan(bucket, shape, true);
  }

  private static Reported scan(ListingBucket bucket, Shape shape, boolean readsSchemas) throws IOException {
    server.otherwise(bucket);
    long before = bucket.counts().heads();
    long[] keyHeads = {0};
    Map<String, String> windows = new LinkedHashMap<>();
    List<WindowDrift> drifts = new ArrayList<>();
    S3Client client = server.clientBuilder().retry(new RetryPolicy(1, Duration.ZERO, Duration.ZERO)).build();
    try (S3ObjectStore store = S3ObjectStore.open(client, server.location(shape.storePrefix),
        S3StoreOptions.builder().pageSize(shape.pageSize).build())) {
      HistoryQuery query = HistoryQuery.under("").withListParallelism(shape.parallelism).until(CLOCK, null);
      if (!readsSchemas) {
        query = query.withoutSchemaReads();
      }
      new DivergenceScan(CLOCK, 0, null).run(store, query,
          Set.of(), new DivergenceScan.Listener() {
            @Override
            public void divergent(KeyVerdict v) {
              keyHeads[0] += v.payloads() + v.divergentAttempts();
            }

            @Override
            public void republished(KeyVerdict v) {
              keyHeads[0] += v.payloads() + v.divergentAttempts();
            }

            @Override
            public void drift(WindowDrift w) {
              windows.put(w.pipeline() + "/" + w.windowStart(), "drift");
              drifts.add(w);
            }

            @Override
            public void schemaOverlap(SchemaOverlap w) {
              assertEquals(null, windows.put(w.pipeline() + "/" + w.windowStart(), "overlap"), "reported once: " + w);
            }
          });
    }
    return new Reported(bucket.counts().heads() - before, keyHeads[0], windows, drifts);
  }

  // ------------------------------------------------------------------ building a bucket

  private static Built build(Shape shape) {
    String st = shape.storePrefix;
    ListingBucket b = new ListingBucket(st + "_idem/");
    long[] clock = {NOW - 86_400L};
    int[] id = {0};
    int keys = 0;
    Map<String, Integer> schemas = new HashMap<>();
    Map<String, List<Integer>> truth = new LinkedHashMap<>();
    for (Pipeline p : shape.pipelines) {
      for (int w = 0; w < p.windows.size(); w++) {
        long start = NOW - 3_600L * (w + 1);
        List<Key> window = p.windows.get(w);
        Set<String> inWindow = new HashSet<>();
        List<Integer> windowSchemas = new ArrayList<>();
        for (int k = 0; k < window.size(); k++) {
          Key spec = window.get(k);
          // Keys of one window differ by an input (a partition, or drift) and by schema.
          RunSpec run = RunSpec.of(p.name, new Window(start, 3_600), spec.schema == null ? 1 : spec.schema)
              .withInput("part", ("p" + k).getBytes(StandardCharsets.UTF_8));
          String key = run.outputKey().toString();
          if (!inWindow.add(key)) {
            continue;
          }
          keys++;
          schemas.put(key, spec.schema);
          windowSchemas.add(spec.schema);
          for (int v = 0; v < spec.versions; v++) {
            String content = key + (spec.divergent && v > 0 ? " build " + v : "");
            put(b, st + key, content, spec.schema, true, clock, id, false);
            if (spec.deleted && v == 0) {
              put(b, st + key, null, spec.schema, true, clock, id, true);
            }
          }
          if (spec.divergent && spec.evidence) {
            String other = key + " other";
            put(b, st + "_idem/evidence/" + key + "!" + Sha256.of(other.getBytes(StandardCharsets.UTF_8)), other,
                spec.schema, true, clock, id, false);
          }
        }
        if (windowSchemas.size() > 1) {
          truth.put(p.name + "/" + start, windowSchemas);
        }
      }
    }
    for (int i = 0; i < shape.legacy; i++) {
      keys++;
      for (int v = 0; v < 1 + i % 3; v++) { // fixed paths written over, every other one with other bytes
        put(b, st + "legacy/fixed-" + i + ".json", "fixed " + i + (i % 2 == 0 ? " v" + v : ""), null, false, clock, id,
            false);
      }
    }
    put(b, st + "_idem/store", "marker", null, false, clock, id, false);
    return new Built(b, keys, schemas, truth);
  }

  /**
   * Adds a version, with idem's metadata when {@code idem} wrote it (its schema when one is given), or a
   * delete marker; ETags follow content.
   */
  private static void put(ListingBucket b, String key, String content, Integer schema, boolean idem, long[] clock,
      int[] id, boolean deleteMarker) {
    Instant at = Instant.ofEpochSecond(++clock[0]);
    String versionId = "v" + (++id[0]);
    if (deleteMarker) {
      b.add(new Version(key, versionId, true, null, 0, at, Map.of()));
      return;
    }
    byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
    String sha = Sha256.of(bytes);
    Map<String, String> meta = new HashMap<>();
    if (idem) {
      meta.put("idem-sha256", sha);
      meta.put("idem-writer", "w");
      meta.put("idem-published", at.toString());
    }
    if (schema != null) {
      meta.put("idem-schema", schema.toString());
    }
    b.add(new Version(key, versionId, false, sha.substring(0, 32), bytes.length, at, meta));
  }
}
