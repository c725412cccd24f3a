package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Sha256;
import dev.idem.core.Window;
import dev.idem.core.scan.DivergenceScan;
import dev.idem.core.scan.KeyVerdict;
import dev.idem.core.scan.ScanSummary;
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
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;

/**
 * The scan's cost model (C2 in the design document), checked over generated bucket shapes on a fake S3
 * server that answers as S3 does, refuses every listing start some server does not honour, and counts
 * what it is asked ({@link ListingBucket}).
 *
 * <p>A shape mixes what nobody designing the listing chose: live pipelines and pipelines stopped years
 * ago, one and several keys a window (inputs), schema bumps, sparse and backfilled windows, divergent
 * rewrites with and without evidence under {@code _idem/}, delete markers, legacy fixed paths, deep
 * directories, one directory of many pages, unicode and percent-signed keys, the store's own records,
 * a store prefix, and a scan of everything, of one directory, or of one pipeline since a window. For
 * each, the scan with its listing split ({@code --list-parallelism} above 1) must give exactly the
 * verdicts of one sequential listing, and its requests must stay within the model:
 *
 * <ul>
 *   <li>entries: every version in scope read once; the own area at most two pages; a window query's
 *       first page besides;
 *   <li>list requests: the sequential listing's pages, plus one per part, at most {@code 10 ×}
 *       {@link SplitListing#MAX_LEVELS}{@code  + 1} parts per full page;
 *   <li>HEADs: only for what the scan reports: a divergent or republished key's distinct contents and
 *       attempts, and the schemas of at most three keys of each window of several keys (drift or a
 *       schema bump's overlap); never per key.
 * </ul>
 */
class ScanCostProperties {
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

  /** A pipeline's history: where its windows lie and what was written to them. */
  record Pipeline(String name, long lastWindow, long step, int windows, int keysPerWindow, int versionsPerKey,
      boolean sparse, boolean schemaBump, int divergeEvery, boolean evidence, boolean deleteSome) {}

  /** Keys outside idem's layout. */
  record Legacy(int fixedPaths, int deepFiles, int bigDirectory, int unicode) {}

  /** One generated bucket and what is scanned in it. */
  record Shape(String storePrefix, List<Pipeline> pipelines, Legacy legacy, int scope, int pageSize, int parallelism) {
    @Override
    public String toString() {
      return "store '" + storePrefix + "', page " + pageSize + ", parallelism " + parallelism + ", scope " + scope
          + ", " + legacy + ", " + pipelines;
    }
  }

  @Provide
  Arbitrary<Shape> shapes() {
    Arbitrary<Pipeline> pipeline = Combinators.combine(
        Arbitraries.of("orders", "b", "p1", "zz-top"),
        Arbitraries.of(NOW - 60, NOW - 3_600, NOW - 2 * 365 * 86_400L, NOW - 40 * 86_400L),
        Arbitraries.of(60L, 3_600L, 86_400L),
        Arbitraries.integers().between(1, 60),
        Arbitraries.integers().between(1, 3),
        Arbitraries.integers().between(1, 3),
        Arbitraries.of(false, true),
        Arbitraries.of(false, true))
        .as((name, last, step, windows, keys, versions, sparse, bump) ->
            new Pipeline(name, last - last % step, step, windows, keys, versions, sparse, bump, 0, false, false))
        .flatMap(p -> Combinators.combine(Arbitraries.of(0, 3, 7), Arbitraries.of(false, true),
            Arbitraries.of(false, true)).as((every, evidence, delete) -> new Pipeline(p.name, p.lastWindow, p.step,
                p.windows, p.keysPerWindow, p.versionsPerKey, p.sparse, p.schemaBump, every, evidence, delete)));
    Arbitrary<Legacy> legacy = Combinators.combine(Arbitraries.integers().between(0, 5),
        Arbitraries.integers().between(0, 12), Arbitraries.of(0, 0, 40, 150), Arbitraries.integers().between(0, 6))
        .as(Legacy::new);
    return Combinators.combine(Arbitraries.of("", "st/"), pipeline.list().ofMaxSize(3).uniqueElements(Pipeline::name),
        legacy, Arbitraries.integers().between(0, 3), Arbitraries.of(3, 7, 10, 25, 50),
        Arbitraries.integers().between(2, 16)).as(Shape::new);
  }

  @Property(tries = 60)
  void scan_splitListing_sameVerdictsAsOneSequentialListingWithinTheCostModel(@ForAll("shapes") Shape shape)
      throws IOException {
    ListingBucket bucket = build(shape);
    HistoryQuery query = query(shape);
    Outcome sequential = scan(bucket, shape, query.withListParallelism(1));
    Outcome split = scan(bucket, shape, query.withListParallelism(shape.parallelism));
    assertEquals(sequential.verdicts, split.verdicts, "verdicts of the split listing and of one sequential listing");
    assertEquals(sequential.summary, split.summary, "summaries");

    ListingBucket.Counts c = split.cost;
    String own = shape.storePrefix + "_idem/";
    String listPrefix = shape.storePrefix + query.prefix();
    String from = query.listFrom() == null ? null : shape.storePrefix + query.listFrom();
    long inScope = 0;
    long inPrefix = 0;
    int topDirectories = 0;
    Set<String> dirs = new LinkedHashSet<>();
    for (Map.Entry<String, List<Version>> e : bucket.keys().entrySet()) {
      String k = e.getKey();
      if (!k.startsWith(listPrefix) || k.startsWith(own)) {
        continue;
      }
      inPrefix += e.getValue().size();
      if (from == null || ListingBucket.compareUtf8(k, from) >= 0) {
        inScope += e.getValue().size();
      }
      int slash = k.indexOf('/', listPrefix.length());
      if (slash >= 0) {
        dirs.add(k.substring(0, slash + 1));
      }
    }
    topDirectories = dirs.size();
    int page = shape.pageSize;
    long read = c.versionEntries() - c.ownAreaEntries();
    if (from == null) {
      assertEquals(inPrefix, read, "every version under the prefix read once: " + c);
    } else {
      assertTrue(read <= inScope + page, read + " versions read, " + inScope + " from the first window: " + c);
    }
    assertTrue(c.ownAreaEntries() <= 2L * page, c.ownAreaEntries() + " entries of the own area read: " + c);
    assertTrue(c.commonPrefixes() <= topDirectories + 1, c.commonPrefixes() + " directories named for "
        + topDirectories + ": " + c);
    long pages = Math.max(1, (inPrefix + page - 1) / page);
    long parts = 1 + pages * (10L * SplitListing.MAX_LEVELS + 1) + (c.commonPrefixes() + page - 1) / page
        + (from == null ? 0 : 1 + 9L * Long.toString(NOW).length());
    assertTrue(c.versionListings() <= pages + parts, c.versionListings() + " version listings for " + inPrefix
        + " versions in pages of " + page + ": " + c);
    long evidence = bucket.keys().keySet().stream().filter(k -> k.startsWith(own + "evidence/")).count();
    long pipelines = shape.pipelines.size();
    // The shapes hold no acknowledgements: listing them is one request, once a divergent key is met.
    long acknowledgements = 1;
    // Nor claims: listing them is one request on a store that keeps claims, once after the keys.
    long claims = 1;
    assertTrue(c.objectListings() <= Math.max(1, (evidence + page - 1) / page) + pipelines + acknowledgements + claims,
        c.objectListings() + " ListObjectsV2 requests for " + evidence + " evidence objects, " + pipelines
            + " pipelines, no acknowledgements and no claims: " + c);
    assertTrue(c.gets() <= pipelines, c.gets() + " GETs for " + pipelines + " pipelines: " + c);
    assertTrue(c.heads() <= split.headAllowance, c.heads() + " HEADs, " + split.headAllowance
        + " allowed for the keys and windows reported: " + c);
    Statistics.label("version listings per sequential page").collect(
        c.versionListings() <= pages ? "1" : c.versionListings() <= 2 * pages ? "up to 2" : c.versionListings() <= 4 * pages
            ? "up to 4" : "more");
    Statistics.label("scope").collect(shape.scope);
  }

  /** What a scan reported and what it cost. */
  record Outcome(List<String> verdicts, String summary, ListingBucket.Counts cost, long headAllowance) {}

  private static Outcome scan(ListingBucket bucket, Shape shape, HistoryQuery query) throws IOException {
    server.otherwise(bucket);
    ListingBucket.Counts before = bucket.counts();
    List<String> verdicts = new ArrayList<>();
    long[] allowance = {0};
    Set<String> windows = new HashSet<>();
    S3Client client = server.clientBuilder().retry(new RetryPolicy(1, Duration.ZERO, Duration.ZERO)).build();
    ScanSummary summary;
    try (S3ObjectStore store = S3ObjectStore.open(client, server.location(shape.storePrefix),
        S3StoreOptions.builder().pageSize(shape.pageSize).build())) {
      summary = new DivergenceScan(CLOCK, 0, null).run(store, query.until(CLOCK, null), Set.of(),
          new DivergenceScan.Listener() {
            @Override
            public void divergent(KeyVerdict v) {
              verdicts.add(v.referenceLine() + " " + v.basis() + " attempts=" + v.divergentAttempts());
              allowance[0] += v.payloads() + v.divergentAttempts();
            }

            @Override
            public void republished(KeyVerdict v) {
              verdicts.add("REPUBLISHED " + v.key() + " lives=" + v.lives());
              allowance[0] += v.payloads() + v.divergentAttempts();
            }

            @Override
            public void drift(WindowDrift w) {
              verdicts.add("DRIFT " + w);
              windows.add(w.pipeline() + "/" + w.windowStart());
            }

            @Override
            public void schemaOverlap(SchemaOverlap w) {
              verdicts.add("OVERLAP " + w);
              windows.add(w.pipeline() + "/" + w.windowStart());
            }
          });
    }
    ListingBucket.Counts after = bucket.counts();
    ListingBucket.Counts cost = new ListingBucket.Counts(after.versionListings() - before.versionListings(),
        after.versionEntries() - before.versionEntries(), after.commonPrefixes() - before.commonPrefixes(),
        after.ownAreaEntries() - before.ownAreaEntries(), after.objectListings() - before.objectListings(),
        after.objectEntries() - before.objectEntries(), after.heads() - before.heads(), after.gets() - before.gets());
    String s = "keys=" + summary.keys() + " entries=" + summary.entries() + " benign=" + summary.benignDuplicateKeys()
        + " divergent=" + summary.divergentKeys() + " drift=" + summary.driftPositions() + " republished="
        + summary.republishedKeys() + " complete=" + summary.complete();
    return new Outcome(verdicts, s, cost, allowance[0] + (long) SchemaReads.PER_WINDOW * windows.size());
  }

  private static HistoryQuery query(Shape shape) {
    return switch (shape.scope) {
      case 1 -> HistoryQuery.under(shape.pipelines.isEmpty() ? "legacy/" : shape.pipelines.get(0).name + "/");
      case 2 -> shape.pipelines.isEmpty() ? HistoryQuery.under("big/")
          : HistoryQuery.windows(shape.pipelines.get(0).name, shape.pipelines.get(0).lastWindow
              - shape.pipelines.get(0).step * (shape.pipelines.get(0).windows / 2));
      default -> HistoryQuery.under("");
    };
  }

  // ------------------------------------------------------------------ building a bucket

  private static ListingBucket build(Shape shape) {
    String st = shape.storePrefix;
    ListingBucket b = new ListingBucket(st + "_idem/");
    long[] clock = {NOW - 3 * 365 * 86_400L};
    int[] id = {0};
    for (Pipeline p : shape.pipelines) {
      for (int w = 0; w < p.windows; w++) {
        if (p.sparse && (w * 7 + p.name.length()) % 3 == 0) {
          continue;
        }
        // Backfilled: a stopped pipeline's windows are written in no particular order of time.
        long start = p.lastWindow - p.step * (p.sparse ? (w * 37L) % (p.windows * 3L) : w);
        for (int k = 0; k < p.keysPerWindow; k++) {
          int schema = p.schemaBump && k == p.keysPerWindow - 1 && p.keysPerWindow > 1 ? 2 : 1;
          RunSpec spec = RunSpec.of(p.name, new Window(start, p.step), schema);
          if (p.keysPerWindow > 1 && schema == 1) {
            spec = spec.withInput("part", ("p" + k).getBytes(StandardCharsets.UTF_8));
          }
          String key = spec.outputKey().toString();
          boolean diverges = p.divergeEvery > 0 && w % p.divergeEvery == 0 && k == 0;
          for (int v = 0; v < p.versionsPerKey + (diverges ? 1 : 0); v++) {
            String content = key + (diverges && v > 0 ? " build 43" : "");
            put(b, st + key, content, schema, clock, id, false);
            if (p.deleteSome && v == 0 && w % 5 == 1) {
              put(b, st + key, null, schema, clock, id, true);
            }
          }
          if (diverges && p.evidence) {
            String sha = Sha256.of((key + " other").getBytes(StandardCharsets.UTF_8));
            put(b, st + "_idem/evidence/" + key + "!" + sha, key + " other", schema, clock, id, false);
          }
        }
      }
      for (int r = 0; r < p.windows / 4; r++) { // the store's own files (no pointer: the scan would read it)
        put(b, st + "_idem/records/" + p.name + "/" + String.format("%020d", r), "record", null, clock, id, false);
      }
    }
    Legacy l = shape.legacy;
    for (int i = 0; i < l.fixedPaths; i++) {
      for (int v = 0; v < 1 + i % 3; v++) {
        put(b, st + "legacy/fixed-" + i + ".json", "fixed " + i + (i % 2 == 0 ? " v" + v : ""), null, clock, id, false);
      }
    }
    for (int i = 0; i < l.deepFiles; i++) {
      put(b, st + "deep/a/b" + i % 3 + "/c/d/file-" + i, "deep " + i, null, clock, id, false);
    }
    for (int i = 0; i < l.bigDirectory; i++) {
      put(b, st + "big/item-" + String.format("%06d", i * 13) + ".csv", "item " + i, null, clock, id, false);
    }
    String[] odd = {"ünï/ключ-", "sp ace/a+b%20c-", "emoji/\uD83D\uDE00-", "a0", "_idem0/x-", "~tilde/"};
    for (int i = 0; i < l.unicode; i++) {
      put(b, st + odd[i % odd.length] + i, "odd " + i, null, clock, id, false);
    }
    put(b, st + "_idem/store", "marker", null, clock, id, false);
    return b;
  }

  private static void put(ListingBucket b, String key, String content, Integer schema, long[] clock, int[] id,
      boolean deleteMarker) {
    clock[0] += 1;
    Instant at = Instant.ofEpochSecond(clock[0]);
    String versionId = "v" + (++id[0]);
    if (deleteMarker) {
      b.add(new Version(key, versionId, true, null, 0, at, Map.of()));
      return;
    }
    byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
    String sha = Sha256.of(bytes);
    Map<String, String> meta = new HashMap<>();
    if (schema != null) {
      meta.put("idem-sha256", sha);
      meta.put("idem-writer", "w");
      meta.put("idem-schema", schema.toString());
      meta.put("idem-published", at.toString());
    }
    b.add(new Version(key, versionId, false, sha.substring(0, 32), bytes.length, at, meta));
  }
}
