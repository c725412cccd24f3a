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
 * bucket, fast, so that scripts/scan-vs-reference.sh measures the two scanning clients and not the
 * server. (S3Proxy 4.1.0 costs time proportional to the whole bucket on every ListObjectVersions
 * request: about 3 s per request at 2,000 versions whatever the page size, hours at 100,000.)
 *
 * <p>The bucket: KEYS keys {@code exports/job-NNN/window-NNNNNN.csv}, each with VERSIONS versions, as
 * a fixed-path legacy fleet leaves them; every DIVERGE_EVERY-th key's newest version has other bytes
 * (another ETag), all other rewrites are byte-identical. Requests are not authenticated.
 *
 * <p>Every reply waits LATENCY_MS first, as an S3 LIST does (published S3 LIST latencies sit between
 * 20 and 100 ms), on its own thread, so concurrent requests wait concurrently as they would on S3. A
 * {@code delimiter} rolls keys up into CommonPrefixes, as S3 does.
 *
 * <p>Usage: java scripts/VersionListingServer.java PORT_FILE KEYS VERSIONS DIVERGE_EVERY [LATENCY_MS] —
 * binds a free port, writes it to PORT_FILE, serves until killed.
 */
public class VersionListingServer {
  private static final String NS = "http://s3.amazonaws.com/doc/2006-03-01/";

  private final List<String> keys = new ArrayList<>();
  private final int versions;
  private final int divergeEvery;
  private final long latencyMillis;

  VersionListingServer(int keyCount, int versions, int divergeEvery, long latencyMillis) {
    for (int k = 0; k < keyCount; k++) {
      keys.add(String.format("exports/job-%03d/window-%06d.csv", k % 100, k));
    }
    Collections.sort(keys);
    this.versions = versions;
    this.divergeEvery = divergeEvery;
    this.latencyMillis = latencyMillis;
  }

  public static void main(String[] args) throws Exception {
    VersionListingServer s = new VersionListingServer(
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
      if (latencyMillis > 0) {
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
      if (ex.getRequestMethod().equals("HEAD")) {
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
        .append("</Name><Prefix>").append(prefix).append("</Prefix><KeyMarker>").append(keyMarker)
        .append("</KeyMarker><VersionIdMarker>").append(versionMarker).append("</VersionIdMarker><MaxKeys>")
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
          items.append("<CommonPrefixes><Prefix>").append(common).append("</Prefix></CommonPrefixes>");
          lastPrefix = common;
          lastKey = common;
          lastVersion = null;
          n++;
        }
        continue;
      }
      int index = Integer.parseInt(key.substring(key.length() - 10, key.length() - 4));
      for (; v < versions && n < max; v++, n++) {
        boolean diverged = divergeEvery > 0 && index % divergeEvery == 0 && v == 0;
        String versionId = "v" + index + "-" + v;
        items.append("<Version><Key>").append(key).append("</Key><VersionId>").append(versionId)
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
      b.append("<NextKeyMarker>").append(lastKey).append("</NextKeyMarker>");
      if (lastVersion != null) {
        b.append("<NextVersionIdMarker>").append(lastVersion).append("</NextVersionIdMarker>");
      }
    }
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
}
