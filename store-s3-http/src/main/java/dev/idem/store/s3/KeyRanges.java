package dev.idem.store.s3;

import dev.idem.core.Names;
import dev.idem.core.OutputKey;
import dev.idem.store.s3.client.KeyOrder;
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
 * Ranges cut by markers can be listed concurrently and still be read in key order. The pages within one
 * range still follow each other, and a range ahead of the reader buffers at most two ({@link
 * RangeCursor}), so the listing is fastest when ranges are about a page long: a directory of ten pages
 * is listed in ten round trips whatever the parallelism.
 *
 * <p>Guarantee: any strictly ascending markers partition the key space, each key in exactly one range,
 * whatever the layout: markers only decide how evenly the work is spread, never what is listed. Keys
 * that follow no layout (legacy fixed paths) are therefore listed completely, in whichever range holds
 * them. The markers come from the layout:
 *
 * <ul>
 *   <li>a pipeline's keys ({@code P/<window_start>/…}): window starts from the first page's last window
 *       to now, as far apart as the first page's first and last windows, so that a pipeline on a schedule
 *       gets ranges of about one page each (window starts are unpadded decimals; the cut is made only
 *       when they have as many digits as now, where string order is numeric order);
 *   <li>anything else (a prefix named like a pipeline whose first key is no idem key included): the
 *       common prefixes of a delimiter listing ({@code /}) of at most {@link
 *       #DISCOVERY_PAGES} pages (pipelines, the directories of a legacy layout; thousands are grouped),
 *       each pipeline among them cut by windows when they are fewer than the parallelism.
 * </ul>
 *
 * <p>Directories listed by prefix: when the delimiter listing was read to its end, saw no key of its
 * own (every key lies in a directory), and its directories are neither grouped nor cut by windows, the
 * plan lists each directory with its prefix ({@link Plan#byDirectory()}). A range cut at markers needs a
 * request past its end to learn that it has ended (the next directory's first key); a prefix listing
 * ends with the directory, so a directory of one page costs one request instead of two. A key written
 * outside every directory after the delimiter listing was read is not listed, as a sequential listing
 * misses a key written behind its position.
 *
 * Failures: a discovery request that fails throws its {@link IOException}; nothing has been listed yet.
 */
final class KeyRanges {
  /** Delimiter pages read to find the common prefixes; beyond them the last range runs to the end. */
  static final int DISCOVERY_PAGES = 2;
  /**
   * Ranges per listing request in flight at most, from common prefixes: every range costs a request even
   * when it holds little, so thousands of small directories are grouped.
   */
  static final int PREFIX_RANGES_PER_REQUEST = 8;
  /** The most ranges a pipeline's windows are cut into. */
  static final int MAX_WINDOW_RANGES = 1024;

  /**
   * Where to cut a listing.
   *
   * @param markers ascending split markers above the listing's start; empty for one sequential listing
   * @param byDirectory whether the markers are directories that hold every key of the listing, each to
   *     be listed by its prefix ({@link RangeCursor.Range#directories}), rather than cut points ({@link
   *     RangeCursor.Range#between})
   */
  record Plan(List<String> markers, boolean byDirectory) {
    static final Plan SEQUENTIAL = new Plan(List.of(), false);

    Plan {
      markers = List.copyOf(markers);
    }

    /** The ranges this plan lists, from {@code start}. */
    List<RangeCursor.Range> ranges(String start) {
      return byDirectory ? RangeCursor.Range.directories(start, markers) : RangeCursor.Range.between(start, markers);
    }
  }

  /**
   * What a delimiter listing found.
   *
   * @param prefixes the common prefixes, ascending
   * @param complete whether the listing was read to its end
   * @param ownKeys whether it listed any key of its own (one not rolled up into a prefix)
   */
  record Directories(List<String> prefixes, boolean complete, boolean ownKeys) {}

  /** The listings the plan is made from. */
  interface Discovery {
    /**
     * A delimiter ({@code /}) listing of {@code listPrefix} after {@code startAfter} ({@code null}: from
     * the first), at most {@code pages} pages of it.
     */
    Directories directories(String listPrefix, String startAfter, int pages) throws IOException;

    /**
     * The first and the last key of the first listing page under {@code listPrefix} after {@code
     * startAfter}, or {@code null} when there is no key or that page is the only one (nothing to cut).
     */
    String[] firstPageSpan(String listPrefix, String startAfter) throws IOException;
  }

  private KeyRanges() {}

  /**
   * Where to cut the listing of {@code listPrefix} after {@code start} for {@code parallelism} requests
   * at once.
   *
   * @param firstPage the first and last key of the listing's first page, or {@code null} when that page
   *     is the only one
   *
   * @param storePrefix the store's prefix in the bucket: a pipeline's keys start {@code storePrefix + P + "/"}
   * @param nowEpochSecond now, the newest window start a closed window can have
   */
  static Plan plan(String listPrefix, String start, String[] firstPage, String storePrefix,
      long nowEpochSecond, int parallelism, Discovery discovery) throws IOException {
    // A listing of one page is not cut: every range would cost a request of its own.
    if (parallelism <= 1 || firstPage == null) {
      return Plan.SEQUENTIAL;
    }
    TreeSet<String> markers = new TreeSet<>(KeyOrder::compare);
    if (isPipelinePrefix(listPrefix, storePrefix)) {
      markers.addAll(windowSplit(listPrefix, firstPage, storePrefix, nowEpochSecond));
    }
    boolean byDirectory = false;
    if (markers.isEmpty()) { // not a pipeline, or one whose keys follow another layout: its directories
      Directories found = discovery.directories(listPrefix, start, DISCOVERY_PAGES);
      List<String> prefixes = thin(found.prefixes(), parallelism * PREFIX_RANGES_PER_REQUEST);
      markers.addAll(prefixes);
      List<String> pipelines = prefixes.stream().filter(p -> isPipelinePrefix(p, storePrefix)).toList();
      if (prefixes.size() < parallelism) {
        for (String p : pipelines) {
          markers.addAll(windowSplit(p, discovery.firstPageSpan(p, start), storePrefix, nowEpochSecond));
        }
      }
      byDirectory = found.complete() && !found.ownKeys() && !prefixes.isEmpty()
          && markers.size() == found.prefixes().size(); // none grouped away, none cut by windows
    }
    if (start != null) {
      // The directory that holds the start is listed from the start. A delimiter listing after a marker
      // equal to a directory's name does not name that directory, so it is added here.
      String holder = byDirectory ? directoryOf(start, listPrefix) : null;
      if (holder != null) {
        markers.add(holder);
      }
      markers.headSet(start, true).removeIf(m -> !m.equals(holder));
    }
    return new Plan(new ArrayList<>(markers), byDirectory);
  }

  /** The directory under {@code listPrefix} that holds {@code key} ({@code listPrefix + "d/"}), or {@code null}. */
  static String directoryOf(String key, String listPrefix) {
    int slash = key.startsWith(listPrefix) ? key.indexOf('/', listPrefix.length()) : -1;
    return slash < 0 ? null : key.substring(0, slash + 1);
  }

  /** At most {@code max} of {@code markers}, evenly spaced, keeping their order. */
  static List<String> thin(List<String> markers, int max) {
    if (markers.size() <= max) {
      return markers;
    }
    List<String> out = new ArrayList<>(max);
    for (int i = 0; i < max; i++) {
      out.add(markers.get((int) ((long) i * markers.size() / max)));
    }
    return out;
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
   * Markers {@code pipelinePrefix + v} for window starts {@code v} from the first page's last window to
   * now, spaced as far apart as the first page's windows are (its first to its last), so each range
   * holds about one page when the pipeline runs on a schedule; none when the first page is the only one,
   * its keys are not idem keys, or a start has fewer digits than now (string order would not be numeric
   * order between them).
   */
  static List<String> windowSplit(String pipelinePrefix, String[] firstPage, String storePrefix, long now) {
    if (firstPage == null) {
      return List.of();
    }
    long lo = windowOf(firstPage[0], storePrefix);
    long hi = windowOf(firstPage[1], storePrefix);
    int digits = Long.toString(now).length();
    if (lo < 0 || hi < lo || hi >= now || Long.toString(lo).length() != digits) {
      return List.of();
    }
    long step = Math.max(1, Math.max(hi - lo, (now - hi) / MAX_WINDOW_RANGES));
    List<String> out = new ArrayList<>();
    for (long v = hi + step; v < now; v += step) {
      out.add(pipelinePrefix + v);
    }
    return out;
  }

  /** The window start of an idem key under {@code storePrefix}, or -1 for any other key. */
  private static long windowOf(String objectKey, String storePrefix) {
    if (!objectKey.startsWith(storePrefix) || !OutputKey.looksLikeKey(objectKey.substring(storePrefix.length()))) {
      return -1;
    }
    return OutputKey.parse(objectKey.substring(storePrefix.length())).windowStartEpochSecond();
  }
}
