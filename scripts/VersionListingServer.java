import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;

/**
 * A read-only S3 endpoint on 127.0.0.1 that answers ListObjectVersions for a synthetic versioned
 * bucket, fast, so that scripts/scan-shapes.sh measures the two scanning clients and not the
 * server. (S3Proxy 4.1.0 costs time proportional to the whole bucket on every ListObjectVersions
 * request: about 3 s per request at 2,000 versions whatever the page size, hours at 100,000.)
 *
 * <p>The bucket: KEYS keys of the shape asked for, each with VERSIONS versions; every DIVERGE_EVERY-th key
 * made has a newest version of other bytes (another ETag), all other rewrites are byte-identical.
 * Requests are not authenticated.
 *
 * <p>Every reply waits LATENCY_MS first, as an S3 LIST does (published S3 LIST latencies sit between
 * 20 and 100 ms), on its own thread, so concurrent requests wait concurrently as they would on S3. A
 * {@code delimiter} rolls keys up into CommonPrefixes, as S3 does.
 *
 * <p>Usage: java scripts/VersionListingServer.java PORT_FILE KEYS VERSIONS DIVERGE_EVERY [LATENCY_MS [SHAPE]] —
 * binds a free port, writes it to PORT_FILE, serves until killed. SHAPE names a bucket of the corpus
 * ({@link Shapes}; default {@code legacy-jobs}). {@code GET /_counts} answers, without latency, the
 * ListObjectVersions requests, the entries they held and the HEADs of objects served so far.
 */
public class VersionListingServer {
  private static final String NS = "http://s3.amazonaws.com/doc/2006-03-01/";

  /** Every key, in S3's order (UTF-8 bytes: code point order, as no key has a character above U+FFFF). */
  private final List<String> keys;
  /** The order each key was made in, which decides whether it diverges. */
  private final int[] made;
  private final int versions;
  private final int divergeEvery;
  private final long latencyMillis;
  private final java.util.concurrent.atomic.AtomicLong listings = new java.util.concurrent.atomic.AtomicLong();
  private final java.util.concurrent.atomic.AtomicLong entries = new java.util.concurrent.atomic.AtomicLong();
  private final java.util.concurrent.atomic.AtomicLong heads = new java.util.concurrent.atomic.AtomicLong();

  VersionListingServer(String shape, int keyCount, int versions, int divergeEvery, long latencyMillis) {
    List<String> made = Shapes.keys(shape, keyCount);
    Integer[] order = new Integer[made.size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    java.util.Arrays.sort(order, (a, b) -> made.get(a).compareTo(made.get(b)));
    this.keys = new ArrayList<>(order.length);
    this.made = new int[order.length];
    for (int i = 0; i < order.length; i++) {
      keys.add(made.get(order[i]));
      this.made[i] = order[i];
      if (i > 0 && keys.get(i).equals(keys.get(i - 1))) {
        throw new IllegalStateException("shape " + shape + " makes " + keys.get(i) + " twice");
      }
    }
    this.versions = versions;
    this.divergeEvery = divergeEvery;
    this.latencyMillis = latencyMillis;
  }

  public static void main(String[] args) throws Exception {
    VersionListingServer s = new VersionListingServer(args.length > 5 ? args[5] : "legacy-jobs",
        Integer.parseInt(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]),
        args.length > 4 ? Long.parseLong(args[4]) : 0);
    HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 256);
    http.createContext("/", s::handle);
    // One thread per request in flight: the latency is a wait, not work, and must not queue.
    http.setExecutor(Executors.newCachedThreadPool());
    http.start();
    java.nio.file.Files.writeString(java.nio.file.Path.of(args[0]), Integer.toString(http.getAddress().getPort()));
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      if (latencyMillis > 0 && !ex.getRequestURI().getPath().equals("/_counts")) {
        try {
          Thread.sleep(latencyMillis);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
      Map<String, String> q = query(ex.getRequestURI().getRawQuery());
      String path = ex.getRequestURI().getPath();
      boolean bucketOnly = path.indexOf('/', 1) < 0 || path.indexOf('/', 1) == path.length() - 1;
      if (path.equals("/_counts")) { // what the server was asked, for the benchmark's table; no latency
        send(ex, listings.get() + " " + entries.get() + " " + heads.get());
      } else if (ex.getRequestMethod().equals("HEAD")) {
        if (!bucketOnly) {
          heads.incrementAndGet();
        }
        ex.sendResponseHeaders(bucketOnly ? 200 : 404, -1);
      } else if (ex.getRequestMethod().equals("GET") && bucketOnly && q.containsKey("versions")) {
        send(ex, versionsPage(path, q));
      } else if (ex.getRequestMethod().equals("GET") && bucketOnly && "2".equals(q.get("list-type"))) {
        send(ex, emptyObjectsPage(path, q));
      } else if (ex.getRequestMethod().equals("GET") && !bucketOnly) {
        // No object is stored (the bucket is its version listing only): the store marker idem reads
        // before a scan, like any object, is not there.
        byte[] body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>NoSuchKey</Code><Message>"
            + "no such key</Message><RequestId>0</RequestId></Error>").getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(404, body.length);
        ex.getResponseBody().write(body);
      } else {
        byte[] body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>NotImplemented</Code><Message>"
            + "read-only listing server</Message><RequestId>0</RequestId></Error>").getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(501, body.length);
        ex.getResponseBody().write(body);
      }
    }
  }

  private String versionsPage(String path, Map<String, String> q) {
    String prefix = q.getOrDefault("prefix", "");
    String keyMarker = q.getOrDefault("key-marker", "");
    String versionMarker = q.getOrDefault("version-id-marker", "");
    int max = Math.min(1000, Integer.parseInt(q.getOrDefault("max-keys", "1000")));
    boolean url = "url".equals(q.get("encoding-type"));
    listings.incrementAndGet();
    int k = Collections.binarySearch(keys, keyMarker);
    int v;
    if (keyMarker.isEmpty()) {
      k = 0;
      v = 0;
    } else if (k >= 0 && !versionMarker.isEmpty()) {
      v = Integer.parseInt(versionMarker.substring(versionMarker.lastIndexOf('-') + 1)) + 1;
    } else {
      k = k >= 0 ? k + 1 : -k - 1;
      v = 0;
    }
    int firstOfPrefix = Collections.binarySearch(keys, prefix);
    firstOfPrefix = firstOfPrefix >= 0 ? firstOfPrefix : -firstOfPrefix - 1;
    if (k < firstOfPrefix) { // keys are sorted: those before the prefix's first cannot match it
      k = firstOfPrefix;
      v = 0;
    }
    StringBuilder b = new StringBuilder(max * 300).append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        .append("<ListVersionsResult xmlns=\"").append(NS).append("\"><Name>").append(bucket(path))
        .append("</Name><Prefix>").append(text(prefix, url)).append("</Prefix><KeyMarker>").append(text(keyMarker, url))
        .append("</KeyMarker>").append(url ? "<EncodingType>url</EncodingType>" : "").append("<VersionIdMarker>").append(versionMarker).append("</VersionIdMarker><MaxKeys>")
        .append(max).append("</MaxKeys>");
    String delimiter = q.get("delimiter");
    StringBuilder items = new StringBuilder(max * 300);
    int n = 0;
    String lastKey = null;
    String lastVersion = null;
    String lastPrefix = null;
    for (; k < keys.size() && n < max; k++, v = 0) {
      String key = keys.get(k);
      if (!key.startsWith(prefix)) {
        break; // sorted: past the prefix's keys
      }
      int d = delimiter == null || delimiter.isEmpty() ? -1 : key.indexOf(delimiter, prefix.length());
      if (d >= 0) {
        String common = key.substring(0, d + delimiter.length());
        if (!common.equals(lastPrefix) && !common.equals(keyMarker)) {
          items.append("<CommonPrefixes><Prefix>").append(text(common, url)).append("</Prefix></CommonPrefixes>");
          lastPrefix = common;
          lastKey = common;
          lastVersion = null;
          n++;
        }
        continue;
      }
      int index = made[k];
      for (; v < versions && n < max; v++, n++) {
        boolean diverged = divergeEvery > 0 && index % divergeEvery == 0 && v == 0;
        String versionId = "v" + index + "-" + v;
        items.append("<Version><Key>").append(text(key, url)).append("</Key><VersionId>").append(versionId)
            .append("</VersionId><IsLatest>").append(v == 0).append("</IsLatest><LastModified>")
            .append("2024-09-10T20:").append(two((versions - v) % 60)).append(':').append(two(index % 60)).append(".000Z")
            .append("</LastModified><ETag>&quot;").append(etag(index, diverged)).append("&quot;</ETag><Size>")
            .append(diverged ? 31 : 20).append("</Size><StorageClass>STANDARD</StorageClass></Version>");
        lastKey = key;
        lastVersion = versionId;
      }
      if (v < versions) {
        break;
      }
    }
    // As S3: truncated only when keys that the request selects remain (under the prefix, and for a
    // delimiter listing not all rolled up into the last common prefix already given).
    boolean truncated = (lastKey != null && v < versions && v > 0) || remainsAfter(k, prefix, lastPrefix);
    if (n < max) {
      truncated = false;
    }
    b.append("<IsTruncated>").append(truncated).append("</IsTruncated>");
    if (truncated) {
      b.append("<NextKeyMarker>").append(text(lastKey, url)).append("</NextKeyMarker>");
      if (lastVersion != null) {
        b.append("<NextVersionIdMarker>").append(lastVersion).append("</NextVersionIdMarker>");
      }
    }
    entries.addAndGet(n);
    return b.append(items).append("</ListVersionsResult>").toString();
  }

  /** Whether a key at or after index {@code k} is selected by the prefix and not rolled into {@code lastPrefix}. */
  private boolean remainsAfter(int k, String prefix, String lastPrefix) {
    for (; k < keys.size() && keys.get(k).startsWith(prefix); k++) {
      if (lastPrefix == null || !keys.get(k).startsWith(lastPrefix)) {
        return true;
      }
    }
    return false;
  }

  private static String emptyObjectsPage(String path, Map<String, String> q) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult xmlns=\"" + NS + "\"><Name>" + bucket(path)
        + "</Name><Prefix>" + q.getOrDefault("prefix", "") + "</Prefix><KeyCount>0</KeyCount><MaxKeys>1000</MaxKeys>"
        + "<IsTruncated>false</IsTruncated></ListBucketResult>";
  }

  /** {@code s} as the reply carries it: percent-encoded when asked for {@code encoding-type=url}, else escaped. */
  private static String text(String s, boolean url) {
    return url ? java.net.URLEncoder.encode(s, StandardCharsets.UTF_8)
        : s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  private static final ThreadLocal<MessageDigest> MD5 = ThreadLocal.withInitial(() -> {
    try {
      return MessageDigest.getInstance("MD5");
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  });

  private static String etag(int index, boolean diverged) {
    byte[] text = ("rows " + index + (diverged ? " build 43" : "")).getBytes(StandardCharsets.UTF_8);
    return HexFormat.of().formatHex(MD5.get().digest(text));
  }

  private static String two(int n) {
    return n < 10 ? "0" + n : Integer.toString(n);
  }

  private static String bucket(String path) {
    String p = path.substring(1);
    return p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
  }

  private static void send(HttpExchange ex, String xml) throws IOException {
    byte[] body = xml.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/xml");
    ex.getResponseHeaders().set("x-amz-request-id", "listing-server");
    ex.sendResponseHeaders(200, body.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(body);
    }
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> q = new HashMap<>();
    if (raw == null) {
      return q;
    }
    for (String part : raw.split("&")) {
      int eq = part.indexOf('=');
      String name = URLDecoder.decode(eq < 0 ? part : part.substring(0, eq), StandardCharsets.UTF_8);
      q.put(name, eq < 0 ? "" : URLDecoder.decode(part.substring(eq + 1), StandardCharsets.UTF_8));
    }
    return q;
  }

  /**
   * The named corpus of bucket shapes (BENCHMARKS.md): the kinds of bucket the scan's property tests
   * generate ({@code ScanCostProperties}), made at benchmark size. Every key lies under {@code data/},
   * the prefix both scans are given; idem's layout keys are {@code data/PIPELINE/WINDOW_START/state-HEX}.
   */
  static final class Shapes {
    /** Four pipelines' last windows; the clock the corpus was made at. */
    private static final long NOW = 1_765_000_000L;
    private static final String[] PIPELINES = {"orders", "billing", "border-state", "fx-rates"};

    static List<String> keys(String shape, int count) {
      List<String> out = new ArrayList<>(count);
      switch (shape) {
        case "legacy-jobs" -> { // the fixed-path fleet: 100 job directories
          for (int k = 0; k < count; k++) {
            out.add(String.format("data/exports/job-%03d/window-%06d.csv", k % 100, k));
          }
        }
        case "stopped-5keys" -> pipelines(out, count, NOW - 2 * 365 * 86_400L, 60, 5, false);
        case "stopped-1key" -> pipelines(out, count, NOW - 2 * 365 * 86_400L, 60, 1, false);
        case "live-mixed" -> { // live pipelines every minute, 5 minutes, hour and day
          long[] steps = {60, 300, 3_600, 86_400};
          int each = count / PIPELINES.length;
          for (int p = 0; p < PIPELINES.length; p++) {
            long last = NOW - NOW % steps[p];
            for (int w = 0; w < each; w++) {
              out.add(idemKey(PIPELINES[p], last - w * steps[p], 0));
            }
          }
        }
        case "sparse-backfilled" -> pipelines(out, count, NOW - 86_400L, 60, 1, true);
        case "one-directory" -> { // one directory of many pages
          for (int k = 0; k < count; k++) {
            out.add(String.format("data/exports/all/part-%08d.csv", k * 7));
          }
        }
        case "flat" -> { // every key in the prefix itself, no directory
          for (int k = 0; k < count; k++) {
            out.add(String.format("data/event-%09d.json", k * 3));
          }
        }
        case "deep-unicode" -> { // deep directories named in French, with a space and a plus
          for (int k = 0; k < count; k++) {
            int day = k / 50;
            out.add(String.format("data/données/année=%04d/mois=%02d/jour=%02d/fichier n°+%05d.csv",
                2000 + day / 372, 1 + day / 31 % 12, 1 + day % 31, k % 50));
          }
        }
        default -> throw new IllegalArgumentException("unknown shape " + shape);
      }
      return out;
    }

    /**
     * Four pipelines of {@code perWindow} keys a window ({@code step} seconds), 95 % of the keys, the last
     * window at {@code last}; sparse: windows drawn at random over five years (written back-filled). And a
     * legacy directory of fixed paths, the rest.
     */
    private static void pipelines(List<String> out, int count, long last, long step, int perWindow, boolean sparse) {
      int idem = count * 95 / 100;
      int windows = Math.max(1, idem / PIPELINES.length / perWindow);
      java.util.Random r = new java.util.Random(42);
      for (String p : PIPELINES) {
        java.util.TreeSet<Long> starts = new java.util.TreeSet<>();
        while (starts.size() < windows) {
          starts.add(sparse ? last - step * r.nextInt(5 * 365 * 1440) : last - step * starts.size());
        }
        for (long w : starts) {
          for (int i = 0; i < perWindow; i++) {
            out.add(idemKey(p, w, i));
          }
        }
      }
      for (int k = out.size(); k < count; k++) {
        out.add(String.format("data/legacy/fixed-%07d.json", k));
      }
    }

    private static String idemKey(String pipeline, long windowStart, int input) {
      try {
        byte[] h = MessageDigest.getInstance("SHA-256")
            .digest((pipeline + "/" + windowStart + "/" + input).getBytes(StandardCharsets.UTF_8));
        return "data/" + pipeline + "/" + windowStart + "/state-" + HexFormat.of().formatHex(h);
      } catch (java.security.NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
