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
 * <p>A case is listed for one of two reasons, which its entry says:
 *
 * <ul>
 *   <li>{@link Why#MEANINGLESS}: the case checks something the server does not do at all (verify a
 *       signature), so it can neither pass nor tell anything about idem there;
 *   <li>{@link Why#AWAITS}: the server deviates from S3 in a way idem must tolerate or refuse, and idem
 *       does not yet: the reason names the deviation, and the entry goes once idem handles it.
 * </ul>
 *
 * A case is named by the simple name of its test class (the concrete class, so the store contract's
 * cases are named per contract class) and its method; a class name alone lists every case of the class.
 */
public final class ServerGaps implements ExecutionCondition {
  /** Why a case does not run on a server. */
  public enum Why {
    MEANINGLESS("not meaningful"),
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
  private static final String CLI = "S3CommandsTest#";
  private static final String HISTORY = "S3HistoryTest#";

  private static final String NO_SIGNATURES = "it checks no SigV4 signature, so a wrong secret is accepted";
  private static final String MOTO_CREATE_RACE = "its If-None-Match: * is not atomic: it looks the key up and then"
      + " stores the object as two steps of a threaded server with no lock between them (moto/s3/responses.py,"
      + " put_object), so writers racing to create one key can all succeed";
  private static final String MOTO_VERSION_ORDER = "it orders a key's versions by last-modified time to the"
      + " millisecond and lists those of one millisecond oldest first, not newest first; the case deletes and"
      + " publishes again within a millisecond, so the delete marker lists below both versions (S3HistoryTest's"
      + " bucket does so at two keys, which every case listing them meets)";
  private static final String S3MOCK_CREATE_RACE = "its If-None-Match: * is not atomic: the condition is checked in"
      + " its service layer before the store writes the object, so writers racing to create one key can all"
      + " succeed";
  private static final String S3MOCK_CREATE_AFTER_DELETE = "in a versioned bucket it refuses If-None-Match: * with"
      + " 412 at a key whose current version is a delete marker, while HEAD answers 404, so a deleted key can"
      + " never be published again";
  private static final String S3MOCK_LISTS_DELETED = "in a versioned bucket its ListObjectsV2 lists a key whose"
      + " current version is a delete marker";

  private static final Map<S3Implementation, Map<String, Gap>> GAPS = Map.of(
      S3Implementation.S3PROXY, Map.of(),
      S3Implementation.MOTO, table(
          gaps(Why.MEANINGLESS, MOTO_CREATE_RACE, CAS + "putIfAbsent_concurrentIdentical_exactlyOneCreated",
              CAS + "putIfAbsent_concurrentDivergent_oneWinnerOthersDivergent",
              LOG + "putIfAbsent_concurrentIdentical_exactlyOneCreated",
              LOG + "putIfAbsent_concurrentDivergent_oneWinnerOthersDivergent",
              LOG + "advance_concurrentWriters_endsAtMaximumNoLostUpdate",
              PROVER + "requireWritable_racingFirstWriters_oneMarkerVersionAndAllTrustIt"),
          gaps(Why.MEANINGLESS, MOTO_VERSION_ORDER, LOG + "retirement_windowPublishedAgainAfterGc_republishedNotDivergent",
              HISTORY + "deleteVersion_removesThatVersionForGood_aMissingOneIsNoError",
              HISTORY + "history_deletedKey_deleteMarkerReported",
              HISTORY + "history_sameBytesSinglePartThenMultipart_oneContentBySha",
              HISTORY + "historyQuery_partitionedListing_sameKeysAndEntriesAsOneSequentialListing",
              HISTORY + "historyQuery_windowRange_onlyKeysInRangeAndNoHeadForTheRest",
              HISTORY + "list_pagedBySeven_currentObjectsOnlyInternalSkipped"),
          gaps(Why.MEANINGLESS, NO_SIGNATURES, CLI + "wrongSecret_isAnAuthFailure")),
      S3Implementation.S3MOCK, table(
          gaps(Why.MEANINGLESS, S3MOCK_CREATE_RACE, CAS + "putIfAbsent_concurrentIdentical_exactlyOneCreated",
              CAS + "putIfAbsent_concurrentDivergent_oneWinnerOthersDivergent",
              LOG + "putIfAbsent_concurrentIdentical_exactlyOneCreated",
              LOG + "putIfAbsent_concurrentDivergent_oneWinnerOthersDivergent",
              LOG + "advance_concurrentWriters_endsAtMaximumNoLostUpdate",
              PROVER + "requireWritable_racingFirstWriters_oneMarkerVersionAndAllTrustIt"),
          gaps(Why.MEANINGLESS, NO_SIGNATURES, CLI + "wrongSecret_isAnAuthFailure"),
          gaps(Why.AWAITS, S3MOCK_CREATE_AFTER_DELETE, LOG + "delete_existing_goneAndRepublishable",
              LOG + "retirement_windowPublishedAgainAfterGc_republishedNotDivergent"),
          gaps(Why.AWAITS, S3MOCK_LISTS_DELETED, "S3HistoryTest#list_pagedBySeven_currentObjectsOnlyInternalSkipped")));

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
