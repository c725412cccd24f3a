package dev.idem.store.s3;

/**
 * What the store's trusted marker records about the server that changes how the store writes. It exists
 * so that a store learns the server's answers once, as a value it is built with ({@link
 * S3ObjectStore#configuredBy}), from the marker its writer trusts ({@link S3StoreProver#adopt}), never
 * as a setting flipped under writes in flight; each publish's {@link UploadPlan} reads them as one of its
 * inputs.
 *
 * @param verifiesChecksumSha256 the server refuses a body whose {@code x-amz-checksum-sha256} does not
 *     match it (the {@code put-checksum-sha256} probe): single PUTs carry their SHA-256 there instead of
 *     signing the payload
 * @param appliesRacingCreates the server let more than one of racing {@code If-None-Match: *} writes
 *     succeed (the {@code if-none-match-atomic} probe, on a versioned bucket): every publish, single PUT
 *     and multipart alike, checks the versions under its own and gives way to an earlier one, and fails
 *     when its reply names no version to check
 */
record ProbeAnswers(boolean verifiesChecksumSha256, boolean appliesRacingCreates) {
  /** A store no marker vouches for: single PUTs sign the payload; only multipart completions are checked. */
  static final ProbeAnswers NONE = new ProbeAnswers(false, false);
}
