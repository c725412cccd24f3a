package dev.idem.store.s3.testing;

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

  private static final Map<S3Implementation, Map<String, Gap>> GAPS = Map.of(
      S3Implementation.S3PROXY, Map.of(),
      S3Implementation.MOTO, Map.of(),
      S3Implementation.S3MOCK, Map.of());

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

  private static Optional<Gap> gap(S3Implementation server, String testClass, String method) {
    Map<String, Gap> gaps = GAPS.get(server);
    Gap whole = gaps.get(testClass);
    if (whole != null || method == null) {
      return Optional.ofNullable(whole);
    }
    return Optional.ofNullable(gaps.get(testClass + "#" + method));
  }
}
