package dev.idem.fuzz;

/**
 * A contract of {@code S3ObjectStore} broken on purpose at the HTTP seam in front of it ({@link
 * FaultyHttpProxy}), so the suite can show that its random scenarios find the breakage; the store's code
 * is left as shipped.
 */
enum S3Breakage {
  /** The store as shipped. */
  NONE,
  /**
   * "A completion's success is a creation": the proxy drops {@code x-amz-version-id} from every
   * CompleteMultipartUpload reply and every HEAD of an object, so the store cannot learn the version it
   * created and cannot look under it. On a server that applies every completion ({@link Scenario.Hazard#APPLIES_EVERY_COMPLETION})
   * a second publisher then reports CREATED over the first (P3) and its bytes stay current (P2).
   */
  TRUSTS_COMPLETION
}
