package dev.idem.store.s3;

import dev.idem.core.Names;
import dev.idem.core.OutputKey;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Where to cut one key-ordered listing so its parts can be listed at the same time: a list of split
 * markers {@code m1 < m2 < … < mk}, which make the ranges {@code (start, m1]}, {@code (m1, m2]}, …,
 * {@code (mk, end)}. A range is listed by starting after its lower marker and stopping at the first key
 * above its upper one.
 *
 * <p>Why it exists: S3 answers a listing page in tens of milliseconds and hands out the next page's
 * position only with the page, so one listing of 100 pages costs 100 round trips before any parsing.
 * Ranges cut by markers can be listed concurrently and still be read in key order.
 *
 * <p>Guarantee: any strictly ascending markers partition the key space, each key in exactly one range,
 * whatever the layout: markers only decide how evenly the work is spread, never what is listed. Keys
 * that follow no layout (legacy fixed paths) are therefore listed completely, in whichever range holds
 * them. The markers come from the layout:
 *
 * <ul>
 *   <li>a pipeline's keys ({@code P/<window_start>/…}): window starts evenly spaced between the first
 *       window listed and now (window starts are unpadded decimals; the split is made only when the
 *       first and now have the same number of digits, where string order is numeric order);
 *   <li>anything else: the common prefixes of a delimiter listing ({@code /}) of at most {@link
 *       #DISCOVERY_PAGES} pages (pipelines, the directories of a legacy layout), each pipeline among them
 *       split by windows when they are fewer than the parallelism asks for.
 * </ul>
 *
 * Failures: a discovery request that fails throws its {@link IOException}; nothing has been listed yet.
 */
final class KeyRanges {
  /** Delimiter pages read to find the common prefixes; beyond them the last range runs to the end. */
  static final int DISCOVERY_PAGES = 2;
  /** Ranges per listing request in flight: enough that one slow range does not leave the others idle. */
  static final int RANGES_PER_REQUEST = 2;

  /** The listings the plan is made from. */
  interface Discovery {
    /**
     * The common prefixes (delimiter {@code /}) under {@code listPrefix} after {@code startAfter}
     * ({@code null}: from the first), ascending, from at most {@code pages} pages.
     */
    List<String> commonPrefixes(String listPrefix, String startAfter, int pages) throws IOException;

    /** The first key under {@code listPrefix} after {@code startAfter}, or {@code null} when there is none. */
    String firstKey(String listPrefix, String startAfter) throws IOException;
  }

  private KeyRanges() {}

  /**
   * The split markers for listing {@code listPrefix} after {@code start} with {@code parallelism}
   * requests at once; empty for one sequential listing.
   *
   * @param storePrefix the store's prefix in the bucket: a pipeline's keys start {@code storePrefix + P + "/"}
   * @param nowEpochSecond now, the newest window start a closed window can have
   */
  static List<String> plan(String listPrefix, String start, String storePrefix, long nowEpochSecond,
      int parallelism, Discovery discovery) throws IOException {
    if (parallelism <= 1) {
      return List.of();
    }
    int target = parallelism * RANGES_PER_REQUEST;
    TreeSet<String> markers = new TreeSet<>(KeyOrder::compare);
    if (isPipelinePrefix(listPrefix, storePrefix)) {
      markers.addAll(windowSplit(listPrefix, discovery.firstKey(listPrefix, start), storePrefix, nowEpochSecond,
          target));
    } else {
      List<String> prefixes = discovery.commonPrefixes(listPrefix, start, DISCOVERY_PAGES);
      markers.addAll(prefixes);
      List<String> pipelines = prefixes.stream().filter(p -> isPipelinePrefix(p, storePrefix)).toList();
      if (prefixes.size() < parallelism && !pipelines.isEmpty()) {
        int each = Math.max(2, target / pipelines.size());
        for (String p : pipelines) {
          markers.addAll(windowSplit(p, discovery.firstKey(p, start), storePrefix, nowEpochSecond, each));
        }
      }
    }
    if (start != null) {
      markers.headSet(start, true).clear();
    }
    return new ArrayList<>(markers);
  }

  /** Whether {@code prefix} is {@code storePrefix + P + "/"} for a valid pipeline name {@code P}. */
  static boolean isPipelinePrefix(String prefix, String storePrefix) {
    if (prefix.length() <= storePrefix.length() + 1 || !prefix.startsWith(storePrefix) || !prefix.endsWith("/")) {
      return false;
    }
    String name = prefix.substring(storePrefix.length(), prefix.length() - 1);
    return Names.isValidName(name);
  }

  /**
   * Markers {@code pipelinePrefix + v} for {@code pieces - 1} window starts {@code v} evenly spaced from
   * the first key's window to now, so each range holds about as many windows as the others when a
   * pipeline runs on a schedule; none when the first key is not an idem key or the two starts differ in
   * digits (string order would not be numeric order between them).
   */
  static List<String> windowSplit(String pipelinePrefix, String firstKey, String storePrefix, long now, int pieces) {
    if (firstKey == null || !firstKey.startsWith(storePrefix)
        || !OutputKey.looksLikeKey(firstKey.substring(storePrefix.length()))) {
      return List.of();
    }
    long lo = OutputKey.parse(firstKey.substring(storePrefix.length())).windowStartEpochSecond();
    if (lo >= now || Long.toString(lo).length() != Long.toString(now).length()) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    for (int j = 1; j < pieces; j++) {
      long v = lo + (long) ((double) (now - lo) * j / pieces);
      String marker = pipelinePrefix + v;
      if (v > lo && (out.isEmpty() || !out.get(out.size() - 1).equals(marker))) {
        out.add(marker);
      }
    }
    return out;
  }
}
