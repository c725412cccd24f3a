package dev.idem.store.s3.testing;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.ParameterInfo;

/**
 * The one table of test cases that do not run on a given S3 implementation, each with the behaviour the
 * server lacks; the condition {@link OnEachS3Server} classes run under. Everything not listed runs on
 * every server.
 *
 * <p>A case is listed for one of three reasons, which its entry says:
 *
 * <ul>
 *   <li>{@link Why#MEANINGLESS}: the case checks something the server does not do at all (verify a
 *       signature), so it can neither pass nor tell anything about idem there;
 *   <li>{@link Why#REFUSED}: idem refuses the server: it breaks a guarantee idem's store probe requires
 *       before a write (exit 8), or answers a request in a way idem refuses as a malformed reply, so a case
 *       that needs idem to write there, or to read such replies, tells nothing about a server idem
 *       accepts: the reason names the guarantee or the reply, and what else the case meets there;
 *   <li>{@link Why#AWAITS}: the server deviates from S3 in a way idem must tolerate or refuse, and idem
 *       does not yet: the reason names the deviation and what idem lacks, and the entry goes once idem
 *       handles it.
 * </ul>
 *
 * A case is named by the simple name of its test class (the concrete class, so the store contract's
 * cases are named per contract class) and its method; a class name alone lists every case of the class.
 */
public final class ServerGaps implements ExecutionCondition {
  /** Why a case does not run on a server. */
  public enum Why {
    MEANINGLESS("not meaningful"),
    REFUSED("refused by idem"),
    AWAITS("awaits idem");

    private final String label;

    Why(String label) {
      this.label = label;
    }
  }

  private record Gap(Why why, String reason) {}

  // The contract classes' cases, named per class (both modes run every contract case).
  private static final String CAS = "S3ObjectStoreCasModeContractTest#";
  private static final String LOG = "S3ObjectStoreLogModeContractTest#";
  private static final String PROVER = "S3StoreProverTest#";
  private static final String HISTORY = "S3HistoryTest#";
  private static final String CLI = "S3CommandsTest#";

  private static final String NO_SIGNATURES = "it checks no SigV4 signature, so a wrong secret is accepted";
  private static final String MOTO_CREATE_RACE = "its If-None-Match: * is not atomic: it looks the key up and then"
      + " stores the object as two steps of a threaded server with no lock between them (moto/s3/responses.py,"
      + " put_object), so writers racing to create one key can all succeed";
  private static final String MOTO_MARKERS_LAST = "its ListObjectVersions reply gives a page's Version elements"
      + " first and its DeleteMarker elements after them, times to the second, so where a delete marker stood"
      + " among a key's older versions is not in the reply (idem puts the latest entry first); the case needs"
      + " gc's delete marker between the version gc removed and the one published again, or the same order"
      + " of a key's entries whichever pages cut them (the shared bucket deletes a key and publishes it again"
      + " within a second)";
  private static final String S3MOCK_CREATE_RACE = "its If-None-Match: * is not atomic: the condition is checked in"
      + " its service layer before the store writes the object, so writers racing to create one key can all"
      + " succeed";
  private static final String S3MOCK_ABORT = "abort-keeps-object: its AbortMultipartUpload deletes the object at"
      + " the key";
  private static final String S3MOCK_REFUSED_PROBE = S3MOCK_ABORT + "; the case needs a store whose probe passes";
  private static final String S3MOCK_CREATE_AFTER_DELETE = "in a versioned bucket it also answers If-None-Match:"
      + " * with 412 at a key whose current version is a delete marker while HEAD answers 404, so publishing a"
      + " deleted key again fails (P7: refused, then gone)";
  private static final String S3MOCK_PAGES = "its ListObjectVersions pages hold max-keys + 1 versions and say"
      + " IsTruncated false while versions remain, and idem refuses a page longer than asked";
  private static final String S3MOCK_REFUSED_DELETED = S3MOCK_ABORT + "; the case publishes a key again after a"
      + " delete: " + S3MOCK_CREATE_AFTER_DELETE;
  private static final String S3MOCK_REFUSED_HISTORY = S3MOCK_ABORT + "; the shared bucket's set-up publishes a"
      + " key again after a delete (" + S3MOCK_CREATE_AFTER_DELETE + "), and the cases list versions in pages"
      + " of seven: " + S3MOCK_PAGES;
  private static final String S3MOCK_REFUSED_PAGES = S3MOCK_PAGES + " (S3Client.listVersions); the case lists"
      + " more versions than a page holds";
  private static final String S3MOCK_REFUSED_CLI = S3MOCK_ABORT + "; the case writes through the command,"
      + " which exits 8 there (doctorAndPublish_eachServer_acceptedOrRefusedByItsProbe)";
  private static final String S3MOCK_LISTS_DELETED = "in a versioned bucket its ListObjectsV2 lists a key whose"
      + " current version is a delete marker, so deleted divergence evidence is still listed; idem takes a listed"
      + " evidence object for an attempt even when its HEAD finds nothing";

  private static final Map<S3Implementation, Map<String, Gap>> GAPS = Map.of(
      S3Implementation.S3PROXY, Map.of(),
      S3Implementation.MOTO, table(
          gaps(Why.MEANINGLESS, MOTO_CREATE_RACE, CAS + "putIfAbsent_concurrentIdentical_exactlyOneCreated",
              CAS + "putIfAbsent_concurrentDivergent_oneWinnerOthersDivergent",
              LOG + "putIfAbsent_concurrentIdentical_exactlyOneCreated",
              LOG + "putIfAbsent_concurrentDivergent_oneWinnerOthersDivergent",
              LOG + "advance_concurrentWriters_endsAtMaximumNoLostUpdate",
              PROVER + "requireWritable_racingFirstWriters_oneMarkerVersionAndAllTrustIt"),
          gaps(Why.MEANINGLESS, MOTO_MARKERS_LAST, LOG + "retirement_windowPublishedAgainAfterGc_republishedNotDivergent",
              HISTORY + "historyQuery_partitionedListing_sameKeysAndEntriesAsOneSequentialListing"),
          gaps(Why.MEANINGLESS, NO_SIGNATURES, CLI + "wrongSecret_isAnAuthFailure")),
      S3Implementation.S3MOCK, table(
          gaps(Why.MEANINGLESS, S3MOCK_CREATE_RACE, CAS + "putIfAbsent_concurrentIdentical_exactlyOneCreated",
              CAS + "putIfAbsent_concurrentDivergent_oneWinnerOthersDivergent",
              LOG + "putIfAbsent_concurrentIdentical_exactlyOneCreated",
              LOG + "putIfAbsent_concurrentDivergent_oneWinnerOthersDivergent",
              LOG + "advance_concurrentWriters_endsAtMaximumNoLostUpdate",
              PROVER + "requireWritable_racingFirstWriters_oneMarkerVersionAndAllTrustIt"),
          gaps(Why.MEANINGLESS, NO_SIGNATURES, CLI + "wrongSecret_isAnAuthFailure"),
          gaps(Why.REFUSED, S3MOCK_REFUSED_PROBE, PROVER + "putIfAbsent_serverIgnoresPartChecksums_recordedNotRequiredAndPublished",
              PROVER + "putIfAbsent_logModeServerIgnoresIfMatch_acceptedAndAnswerRecorded",
              PROVER + "requireWritable_markerPresent_trustedWithoutProbingAgain",
              PROVER + "writesAndPointerReads_markerNamesOtherPointerMode_refused"),
          gaps(Why.REFUSED, S3MOCK_REFUSED_DELETED, LOG + "delete_existing_goneAndRepublishable",
              LOG + "retirement_windowPublishedAgainAfterGc_republishedNotDivergent"),
          gaps(Why.REFUSED, S3MOCK_REFUSED_HISTORY, HISTORY + "history_pagedBySeven_everyKeyOnceInOrderInternalAreaSkipped",
              HISTORY + "history_smallPagesAndOnePage_sameEntries",
              HISTORY + "historyQuery_windowRange_onlyKeysInRangeAndNoHeadForTheRest",
              HISTORY + "historyQuery_deadlinePassesMidListing_stopsIncomplete",
              HISTORY + "historyQuery_partitionedListing_sameKeysAndEntriesAsOneSequentialListing",
              HISTORY + "history_legacyOverwrites_divergentByEtagAndBenignByEtag",
              HISTORY + "history_divergentAttempt_mergedWithItsKeyComparedBySha",
              HISTORY + "history_sameBytesSinglePartThenMultipart_oneContentBySha",
              HISTORY + "history_deletedKey_deleteMarkerReported",
              HISTORY + "history_evidenceWithoutObject_ownGroupInOrder",
              HISTORY + "history_singleVersionKeys_noRequestPerVersion",
              HISTORY + "history_visitorStops_returnsFalseEarly",
              HISTORY + "list_pagedBySeven_currentObjectsOnlyInternalSkipped"),
          gaps(Why.REFUSED, S3MOCK_REFUSED_PAGES,
              HISTORY + "history_directoriesOfExactlyOnePage_everyVersionOnce",
              HISTORY + "history_everyKeyInDirectories_everyVersionListedOnce",
              "S3WholeStoreHistoryTest"),
          gaps(Why.REFUSED, S3MOCK_REFUSED_CLI, CLI + "publishGetPointerScan_onS3", CLI + "run_onS3",
              CLI + "demo_onS3",
              CLI + "scan_objectReplacedOnUnversionedBucket_failsTheGateLikePointerShow",
              CLI + "scan_wholeStoreOneCleanKey_exits0OneKeyExamined", CLI + "scan_wholeStoreOneOverwrittenKey_exits1",
              CLI + "scan_json_summaryCountsTheRequests"),
          gaps(Why.AWAITS, S3MOCK_LISTS_DELETED, LOG + "deleteRecords_divergentKeyDeleted_evidenceGoneFromHistory")));

  /** Entries for {@code cases} ({@code Class} or {@code Class#method}), all with one reason. */
  private static Map<String, Gap> gaps(Why why, String reason, String... cases) {
    Map<String, Gap> out = new LinkedHashMap<>();
    for (String c : cases) {
      out.put(c, new Gap(why, reason));
    }
    return out;
  }

  @SafeVarargs
  private static Map<String, Gap> table(Map<String, Gap>... parts) {
    Map<String, Gap> out = new LinkedHashMap<>();
    for (Map<String, Gap> part : parts) {
      part.forEach((c, g) -> {
        if (out.put(c, g) != null) {
          throw new IllegalStateException(c + " is listed twice");
        }
      });
    }
    return Map.copyOf(out);
  }

  /**
   * Asked for each case of an {@link OnEachS3Server} class (JUnit does not ask it for the class's
   * invocations, so a class-wide gap skips every case; set-up for a server belongs in {@code BeforeEach},
   * which runs only for a case that runs).
   */
  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    ParameterInfo info = ParameterInfo.get(context);
    if (info == null) {
      return ConditionEvaluationResult.enabled("not run per S3 implementation");
    }
    S3Implementation server = info.getArguments().get(0, S3Implementation.class);
    return gap(server, context.getRequiredTestClass().getSimpleName(),
        context.getTestMethod().map(m -> m.getName()).orElse(null))
        .map(g -> ConditionEvaluationResult.disabled("on " + server + ", " + g.why.label + ": " + g.reason))
        .orElseGet(() -> ConditionEvaluationResult.enabled("runs on " + server));
  }

  /** The case's own entry, else its class's (a class-wide gap may hide a case's second one). */
  private static Optional<Gap> gap(S3Implementation server, String testClass, String method) {
    Map<String, Gap> gaps = GAPS.get(server);
    Gap own = method == null ? null : gaps.get(testClass + "#" + method);
    return Optional.ofNullable(own != null ? own : gaps.get(testClass));
  }
}
