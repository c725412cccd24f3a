package dev.idem.core.store;

import dev.idem.core.Names;
import dev.idem.core.OutputKey;
import java.time.Clock;
import java.time.Instant;
import java.util.Objects;

/**
 * What a history walk ({@link PublishHistory#history(HistoryQuery, PublishHistory.HistoryVisitor)}) is asked
 * for, in a form a store can push into its listing instead of filtering afterwards: the keys under a
 * prefix, optionally only one pipeline's windows from a start on, a deadline, and how many listing
 * requests may run at once.
 *
 * <p>Why it exists: a filter applied to each {@link KeyHistory} comes after the store built it (HEAD
 * requests on S3, reading records on the filesystem), and a deadline checked only for the keys that
 * pass the filter does not bound a walk through keys that do not. A store that honours a query does no
 * work for a key outside it, checks the deadline for every key it lists and before every page it
 * requests, and lists only the key ranges that can hold keys in range.
 *
 * <p>Guarantees: {@link #accepts} is the whole filter: a store may visit fewer keys than a plain
 * listing would (that is the point) but never a key {@link #accepts} rejects, and never omits one it
 * accepts unless the walk stopped ({@code history} then returns {@code false}). Immutable; the clock is
 * only read.
 *
 * @param prefix the keys to walk: every key starting with it
 * @param pipeline with {@code minWindowStart}: only idem keys ({@link OutputKey#looksLikeKey}) of this
 *     pipeline; {@code null} for every key under {@code prefix}
 * @param minWindowStart with {@code pipeline}: only windows starting at or after this epoch second
 * @param clock read for the deadline
 * @param deadline when the walk stops, marked incomplete; {@code null} for none
 * @param listParallelism listing requests a store may have in flight at once, 1 to 64 ({@code 1}: one
 *     sequential listing)
 * @param readsSchemas whether the walk learns the recorded schema of keys that share a window, which judging
 *     keying drift needs; where a listing does not carry it (S3: a HEAD each, at most three a window) a walk
 *     asked not to leaves those keys' schema unknown ({@link KeyHistory#schema()} null) and costs nothing
 *     per window
 */
public record HistoryQuery(String prefix, String pipeline, long minWindowStart, Clock clock, Instant deadline,
    int listParallelism, boolean readsSchemas) {

  /** The most listing requests a query may ask a store to run at once. */
  public static final int MAX_LIST_PARALLELISM = 64;
  /** What {@link #under} asks for: enough to hide S3's per-request latency, few enough for any server. */
  public static final int DEFAULT_LIST_PARALLELISM = 16;

  public HistoryQuery {
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(clock, "clock");
    if (pipeline != null) {
      Names.requirePipeline(pipeline);
      if (!prefix.equals(pipeline + "/")) {
        throw new IllegalArgumentException(
            "a window query lists its pipeline's keys: prefix must be '" + pipeline + "/', was '" + prefix + "'");
      }
    }
    if (minWindowStart < 0) {
      throw new IllegalArgumentException("minWindowStart must be >= 0, was " + minWindowStart);
    }
    if (listParallelism < 1 || listParallelism > MAX_LIST_PARALLELISM) {
      throw new IllegalArgumentException(
          "list parallelism must be 1-" + MAX_LIST_PARALLELISM + ", was " + listParallelism);
    }
  }

  /** Every key under {@code prefix}, no deadline, the default parallelism. */
  public static HistoryQuery under(String prefix) {
    return new HistoryQuery(prefix, null, 0, Clock.systemUTC(), null, DEFAULT_LIST_PARALLELISM, true);
  }

  /** Only {@code pipeline}'s idem keys whose window starts at or after {@code minWindowStart}. */
  public static HistoryQuery windows(String pipeline, long minWindowStart) {
    return new HistoryQuery(pipeline + "/", pipeline, minWindowStart, Clock.systemUTC(), null,
        DEFAULT_LIST_PARALLELISM, true);
  }

  /** This query, stopping at {@code deadline} as read from {@code clock} ({@code null}: no deadline). */
  public HistoryQuery until(Clock clock, Instant deadline) {
    return new HistoryQuery(prefix, pipeline, minWindowStart, clock, deadline, listParallelism, readsSchemas);
  }

  /** This query with {@code requests} listing requests in flight at most. */
  public HistoryQuery withListParallelism(int requests) {
    return new HistoryQuery(prefix, pipeline, minWindowStart, clock, deadline, requests, readsSchemas);
  }

  /**
   * This query without reading schemas that listings do not show: a scan that does not judge keying drift
   * (on S3, up to three HEADs a window of several keys) leaves those keys' schema unknown.
   */
  public HistoryQuery withoutSchemaReads() {
    return new HistoryQuery(prefix, pipeline, minWindowStart, clock, deadline, listParallelism, false);
  }

  /** Whether {@code key} is in the query: under the prefix and, for a window query, in range. */
  public boolean accepts(String key) {
    if (!key.startsWith(prefix)) {
      return false;
    }
    if (pipeline == null) {
      return true;
    }
    return OutputKey.looksLikeKey(key) && OutputKey.parse(key).windowStartEpochSecond() >= minWindowStart;
  }

  /**
   * Whether keys starting with {@code dirPrefix} (a prefix ending in {@code /}, such as {@code p/} or
   * {@code p/1725999960/}) can be in the query, so a store that lists by directory skips the rest. An
   * idem key has three segments: below {@code pipeline/}, only a window directory in range can hold one.
   */
  public boolean mayHoldKeysUnder(String dirPrefix) {
    if (pipeline == null || dirPrefix.length() <= prefix.length()) {
      return true;
    }
    String rest = dirPrefix.substring(prefix.length(), dirPrefix.length() - 1);
    // Deeper directories fail the digit check below, at their '/'.
    if (rest.isEmpty() || rest.length() > 19 || (rest.length() > 1 && rest.charAt(0) == '0')) {
      return false;
    }
    for (int i = 0; i < rest.length(); i++) {
      if (rest.charAt(i) < '0' || rest.charAt(i) > '9') {
        return false;
      }
    }
    return Long.parseLong(rest) >= minWindowStart;
  }

  /**
   * Where a key-ordered listing of a window query may start: every accepted key sorts after this
   * marker, so keys before it need not be listed; {@code null} to list from the prefix's first key.
   *
   * <p>Window starts are decimal without padding, so key order is numeric order only among starts of
   * one length. Starts with as many digits as {@code minWindowStart} and below it sort before {@code
   * pipeline/minWindowStart}; a longer start (a later window) can sort there too, but idem publishes
   * only windows that have closed (G5), whose starts have no more digits than now's epoch second. So
   * the listing starts at the first window in range when {@code minWindowStart} has as many digits as
   * now (every date from 2001 to 2286); otherwise it lists the whole pipeline.
   */
  public String listFrom() {
    if (pipeline == null || minWindowStart == 0) {
      return null;
    }
    String min = Long.toString(minWindowStart);
    String now = Long.toString(Math.max(0, clock.instant().getEpochSecond()));
    return min.length() == now.length() ? prefix + min : null;
  }

  /** Whether the deadline has passed; a store checks it for every key it lists and before every page. */
  public boolean expired() {
    return deadline != null && !clock.instant().isBefore(deadline);
  }
}
