package dev.idem.fuzz;

import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropagationMode;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * Scales a property's tries and sets its seed from system properties, so one build runs a fixed,
 * repeatable budget and {@code -Pfuzz} a large random one:
 *
 * <ul>
 *   <li>{@code fuzz.tries.scale}: multiplies the {@code tries} in {@code @Property} (default 1);
 *   <li>{@code fuzz.tries.<TestClass>} (e.g. {@code fuzz.tries.S3ScenarioProperties}): the tries of
 *       that class's properties, overriding the scale (how {@code -Pfuzz} splits its budget);
 *   <li>{@code fuzz.seed}: a number fixes the seed (the build's default, or a failure's seed to replay
 *       it); {@code random} lets jqwik pick one and print it on failure.
 * </ul>
 */
public final class FuzzBudget implements AroundPropertyHook {
  private static volatile boolean failed;

  /** Whether the running property has failed once (its later tries are shrinking). */
  static boolean failedSoFar() {
    return failed;
  }

  static void markFailed() {
    failed = true;
  }

  /** Registered on a test class, it applies to the class's properties. */
  @Override
  public PropagationMode propagateTo() {
    return PropagationMode.ALL_DESCENDANTS;
  }

  @Override
  public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
    int scale = Integer.getInteger("fuzz.tries.scale", 1);
    context.attributes().tries().ifPresent(t -> context.attributes().setTries(Math.max(1, t * scale)));
    Integer fixed = Integer.getInteger("fuzz.tries." + context.containerClass().getSimpleName());
    if (fixed != null && fixed > 0) {
      context.attributes().setTries(fixed);
    }
    String seed = System.getProperty("fuzz.seed", "20261202");
    if (!seed.equals("random")) {
      context.attributes().setSeed(seed);
    }
    failed = false;
    PropertyExecutionResult result = property.execute();
    if (result.status() == PropertyExecutionResult.Status.FAILED) {
      // Surefire shows the failure's message, not jqwik's report: put the seed and the replay there.
      String seedUsed = result.seed().orElse("?");
      String replay = "\n[fuzz] seed " + seedUsed + "; replay: ./mvnw -B -pl fuzz verify -Dfuzz.seed=" + seedUsed
          + " -Dtest=" + context.containerClass().getSimpleName();
      Throwable cause = result.throwable().orElse(null);
      AssertionError withSeed = new AssertionError((cause == null ? "" : cause.getMessage()) + replay, cause);
      return result.mapToFailed(withSeed);
    }
    return result;
  }
}
