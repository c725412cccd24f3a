package dev.idem.store.s3.testing;

import dev.idem.store.s3.testing.FakeS3Server.Action;
import dev.idem.store.s3.testing.FakeS3Server.Request;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * A versioned bucket held in memory, answered as S3 answers it, for {@link FakeS3Server#otherwise}:
 * ListObjectVersions (prefix, delimiter, key-marker, version-id-marker, max-keys, url encoding),
 * ListObjectsV2 (prefix, start-after, continuation-token), HEAD and GET of a key or a version. Keys are
 * ordered by their UTF-8 bytes, a key's versions newest first.
 *
 * <p>It refuses (400 {@code UnhonouredMarker}) every listing start that some S3 implementation does not
 * honour: a ListObjectVersions key-marker that names no key, or a versioned key without its
 * version-id-marker (moto then lists the key's older versions, S3 skips them all), except, in a
 * delimiter listing, a common prefix. And it counts what it is asked and what it hands out, so a test
 * can hold a walk to a cost model.
 *
 * <p>Thread-safe: the server answers one request at a time, and the counters are atomic.
 */
public final class ListingBucket implements Function<Request, Action> {

  /**
   * One stored version or delete marker.
   *
   * @param versionId {@code "null"} for a version written while the bucket was unversioned
   * @param metadata user metadata ({@code x-amz-meta-} names without the prefix)
   */
  public record Version(String key, String versionId, boolean deleteMarker, String etag, int size, Instant modified,
      Map<String, String> metadata) {}

  /** What has been asked and handed out so far. */
  public record Counts(long versionListings, long versionEntries, long commonPrefixes, long ownAreaEntries,
      long objectListings, long objectEntries, long heads, long gets) {
    public long listRequests() {
      return versionListings + objectListings;
    }
  }

  private final String ownArea;
  /** Key → versions, newest first, keys in S3's order. */
  private final TreeMap<String, List<Version>> keys = new TreeMap<>(ListingBucket::compareUtf8);
  private final AtomicLong versionListings = new AtomicLong();
  private final AtomicLong versionEntries = new AtomicLong();
  private final AtomicLong prefixes = new AtomicLong();
  private final AtomicLong ownAreaEntries = new AtomicLong();
  private final AtomicLong objectListings = new AtomicLong();
  private final AtomicLong objectEntries = new AtomicLong();
  private final AtomicLong heads = new AtomicLong();
  private final AtomicLong gets = new AtomicLong();

  /** @param ownArea the store's own area ({@code PREFIX_idem/}), whose entries handed out are counted apart */
  public ListingBucket(String ownArea) {
    this.ownArea = ownArea;
  }

  /** Adds a version (or delete marker) newer than every earlier one of its key. */
  public synchronized void add(Version v) {
    keys.computeIfAbsent(v.key(), k -> new ArrayList<>()).add(0, v);
  }

  public synchronized Map<String, List<Version>> keys() {
    return new LinkedHashMap<>(keys);
  }

  public Counts counts() {
    return new Counts(versionListings.get(), versionEntries.get(), prefixes.get(), ownAreaEntries.get(),
        objectListings.get(), objectEntries.get(), heads.get(), gets.get());
  }

  /** S3's key order: by UTF-8 bytes, which is code point order. */
  public static int compareUtf8(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }

  @Override
  public synchronized Action apply(Request r) {
    String path = URLDecoder.decode(r.path().replace("+", "%2B"), StandardCharsets.UTF_8);
    int slash = path.indexOf('/', 1);
    String key = slash < 0 || slash == path.length() - 1 ? null : path.substring(slash + 1);
    if (r.method().equals("GET") && key == null && r.query("versions") != null) {
      return versions(r);
    }
    if (r.method().equals("GET") && key == null && "2".equals(r.query("list-type"))) {
      return objects(r);
    }
    if ((r.method().equals("HEAD") || r.method().equals("GET")) && key != null) {
      (r.method().equals("HEAD") ? heads : gets).incrementAndGet();
      return object(key, r.query("versionId"), r.method().equals("HEAD"));
    }
    if (r.method().equals("HEAD") && key == null) {
      return FakeS3Server.status(200, Map.of());
    }
    return FakeS3Server.error(501, "NotImplemented", r.method() + " " + r.target());
  }

  private Action object(String key, String versionId, boolean head) {
    List<Version> vs = keys.get(key);
    Version v = null;
    if (vs != null) {
      for (Version x : vs) {
        if (versionId == null ? true : x.versionId().equals(versionId)) {
          v = x;
          break;
        }
      }
    }
    if (v == null || v.deleteMarker()) {
      return head ? FakeS3Server.status(404, Map.of()) : FakeS3Server.error(404, "NoSuchKey", "no such key");
    }
    Map<String, String> headers = new HashMap<>();
    headers.put("ETag", "\"" + v.etag() + "\"");
    headers.put("Last-Modified", java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME
        .format(v.modified().atZone(java.time.ZoneOffset.UTC)));
    headers.put("x-amz-version-id", v.versionId());
    v.metadata().forEach((n, value) -> headers.put("x-amz-meta-" + n, value));
    return new FakeS3Server.Reply(200, headers, new byte[v.size()]);
  }

  private Action versions(Request r) {
    versionListings.incrementAndGet();
    String prefix = orEmpty(r.query("prefix"));
    String delimiter = r.query("delimiter");
    String keyMarker = r.query("key-marker");
    String versionMarker = r.query("version-id-marker");
    int max = Math.min(1000, Integer.parseInt(orEmpty(r.query("max-keys")).isEmpty() ? "1000" : r.query("max-keys")));
    List<Map.Entry<String, List<Version>>> after = new ArrayList<>();
    int skipVersions = 0;
    if (keyMarker != null && !keyMarker.isEmpty()) {
      List<Version> marked = keys.get(keyMarker);
      boolean versioned = marked != null && marked.stream().anyMatch(v -> !v.versionId().equals("null"));
      boolean commonPrefix = delimiter != null && keyMarker.endsWith(delimiter)
          && keys.keySet().stream().anyMatch(k -> k.startsWith(keyMarker));
      if (!commonPrefix && (marked == null || (versioned && (versionMarker == null || versionMarker.isEmpty())))) {
        return FakeS3Server.error(400, "UnhonouredMarker", "key-marker " + keyMarker + " version-id-marker "
            + versionMarker + ": a position some S3 implementation does not honour");
      }
      if (marked != null && versionMarker != null && !versionMarker.isEmpty()) {
        int at = -1;
        for (int i = 0; i < marked.size(); i++) {
          if (marked.get(i).versionId().equals(versionMarker)) {
            at = i;
          }
        }
        if (at < 0) {
          return FakeS3Server.error(400, "InvalidArgument", "no version " + versionMarker + " of " + keyMarker);
        }
        skipVersions = at + 1;
        after.add(Map.entry(keyMarker, marked));
      }
      after.addAll(keys.tailMap(keyMarker, false).entrySet());
    } else {
      after.addAll(keys.entrySet());
    }
    StringBuilder items = new StringBuilder();
    int n = 0;
    String lastKey = null;
    String lastVersion = null;
    String lastPrefix = null;
    boolean truncated = false;
    outer:
    for (Map.Entry<String, List<Version>> e : after) {
      String k = e.getKey();
      if (!k.startsWith(prefix)) {
        if (compareUtf8(k, prefix) > 0) {
          break;
        }
        continue;
      }
      int d = delimiter == null || delimiter.isEmpty() ? -1 : k.indexOf(delimiter, prefix.length());
      if (d >= 0) {
        String cp = k.substring(0, d + delimiter.length());
        if (cp.equals(lastPrefix) || cp.equals(keyMarker)) {
          continue;
        }
        if (n == max) {
          truncated = true;
          break;
        }
        items.append("<CommonPrefixes><Prefix>").append(enc(cp)).append("</Prefix></CommonPrefixes>");
        prefixes.incrementAndGet();
        lastPrefix = cp;
        lastKey = cp;
        lastVersion = null;
        n++;
        continue;
      }
      List<Version> vs = e.getValue();
      for (int i = k.equals(keyMarker) ? skipVersions : 0; i < vs.size(); i++) {
        if (n == max) {
          truncated = true;
          break outer;
        }
        Version v = vs.get(i);
        String tag = v.deleteMarker() ? "DeleteMarker" : "Version";
        items.append('<').append(tag).append("><Key>").append(enc(k)).append("</Key><VersionId>")
            .append(v.versionId()).append("</VersionId><IsLatest>").append(i == 0).append("</IsLatest><LastModified>")
            .append(v.modified()).append("</LastModified>");
        if (!v.deleteMarker()) {
          items.append("<ETag>&quot;").append(v.etag()).append("&quot;</ETag><Size>").append(v.size())
              .append("</Size><StorageClass>STANDARD</StorageClass>");
        }
        items.append("</").append(tag).append('>');
        versionEntries.incrementAndGet();
        if (k.startsWith(ownArea)) {
          ownAreaEntries.incrementAndGet();
        }
        lastKey = k;
        lastVersion = v.versionId();
        n++;
      }
    }
    StringBuilder b = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListVersionsResult><Name>bkt</Name>")
        .append("<Prefix>").append(enc(prefix)).append("</Prefix><MaxKeys>").append(max)
        .append("</MaxKeys><EncodingType>url</EncodingType><IsTruncated>").append(truncated).append("</IsTruncated>");
    if (truncated) {
      b.append("<NextKeyMarker>").append(enc(lastKey)).append("</NextKeyMarker>");
      if (lastVersion != null) {
        b.append("<NextVersionIdMarker>").append(lastVersion).append("</NextVersionIdMarker>");
      }
    }
    return FakeS3Server.ok(b.append(items).append("</ListVersionsResult>").toString());
  }

  private Action objects(Request r) {
    objectListings.incrementAndGet();
    String prefix = orEmpty(r.query("prefix"));
    String token = r.query("continuation-token");
    String startAfter = token != null ? token : r.query("start-after");
    int max = Integer.parseInt(orEmpty(r.query("max-keys")).isEmpty() ? "1000" : r.query("max-keys"));
    StringBuilder items = new StringBuilder();
    int n = 0;
    String last = null;
    boolean truncated = false;
    for (Map.Entry<String, List<Version>> e : (startAfter == null ? keys : keys.tailMap(startAfter, false)).entrySet()) {
      String k = e.getKey();
      Version current = e.getValue().get(0);
      if (!k.startsWith(prefix) || current.deleteMarker()) {
        continue;
      }
      if (n == max) {
        truncated = true;
        break;
      }
      items.append("<Contents><Key>").append(enc(k)).append("</Key><LastModified>").append(current.modified())
          .append("</LastModified><ETag>&quot;").append(current.etag()).append("&quot;</ETag><Size>")
          .append(current.size()).append("</Size><StorageClass>STANDARD</StorageClass></Contents>");
      objectEntries.incrementAndGet();
      last = k;
      n++;
    }
    StringBuilder b = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult><Name>bkt</Name>")
        .append("<Prefix>").append(enc(prefix)).append("</Prefix><KeyCount>").append(n).append("</KeyCount><MaxKeys>")
        .append(max).append("</MaxKeys><EncodingType>url</EncodingType><IsTruncated>").append(truncated)
        .append("</IsTruncated>");
    if (truncated) {
      b.append("<NextContinuationToken>").append(escape(last)).append("</NextContinuationToken>");
    }
    return FakeS3Server.ok(b.append(items).append("</ListBucketResult>").toString());
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
