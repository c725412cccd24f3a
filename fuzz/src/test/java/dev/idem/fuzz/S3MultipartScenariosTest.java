package dev.idem.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import net.jqwik.api.Example;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * Replicas racing to publish one large payload ({@code D}) to S3 as multipart uploads, with the faults
 * a multipart upload meets, in fixed scenarios, so that they run every build and not only when a seed
 * draws them: a part's connection reset, a part answered 500 after it landed, the completion's reply
 * lost after the object became visible (the retried completion finds the upload gone, and the replica
 * must recognise its own object by its attempt), and a 503 on the CreateMultipartUpload. The checks are
 * the generated scenarios' own ({@link InvariantChecker}): one object per key, readers never see one
 * that was not published whole, the pointer never moves backwards, and an aborted upload is the only
 * leftover allowed.
 */
class S3MultipartScenariosTest {
  private static S3Backend s3;

  private static synchronized S3Backend s3() throws Exception {
    if (s3 == null) {
      s3 = new S3Backend();
    }
    return s3;
  }

  @AfterContainer
  static void close() throws Exception {
    if (s3 != null) {
      s3.close();
    }
  }

  private static Replica large(int id, int startMs, Replica.Build build, Fate fate) {
    return new Replica(id, 0, startMs, 5, 'D', build, false, fate, false);
  }

  /** The scenario holds, and every fault it names was hit (a multipart upload makes the calls it names). */
  private static void assertHolds(Scenario s) throws Exception {
    ScenarioRunner.Result r = new ScenarioRunner(s3()).runCheckAndCount(s);
    assertEquals(List.of(), r.violations(), () -> Report.of(s, r.violations()));
    assertTrue(r.fates().stream().allMatch(f -> f.endsWith(" hit")), r.fates().toString());
  }

  @Example
  void partFaults_racingLargePublishes_oneObjectPointerForward() throws Exception {
    assertHolds(new Scenario(Backend.Kind.S3, List.of(
        large(1, 0, Replica.Build.OLD, new Fate.Finishes()),
        large(2, 0, Replica.Build.OLD, new Fate.Faulted(Fate.Fault.CONNECTION_RESET, new Step("PUT object", false, 2))),
        large(3, 5, Replica.Build.NEW, new Fate.Faulted(Fate.Fault.HTTP_500, new Step("PUT object", true, 1)))), 1));
  }

  @Example
  void completionReplyLost_replicaRecognisesItsOwnObject() throws Exception {
    assertHolds(new Scenario(Backend.Kind.S3, List.of(
        large(1, 0, Replica.Build.OLD, new Fate.Faulted(Fate.Fault.HTTP_500, new Step("POST object", true, 2))),
        large(2, 30, Replica.Build.OLD, new Fate.Finishes())), 1));
  }

  @Example
  void createRefusedOnce_retriedAndPublished() throws Exception {
    assertHolds(new Scenario(Backend.Kind.S3, List.of(
        large(1, 0, Replica.Build.NEW, new Fate.Faulted(Fate.Fault.HTTP_503_SLOW_DOWN, new Step("POST object", false, 1))),
        new Replica(2, 0, 0, 5, 'A', Replica.Build.OLD, false, new Fate.Finishes(), false)), 2));
  }
}
