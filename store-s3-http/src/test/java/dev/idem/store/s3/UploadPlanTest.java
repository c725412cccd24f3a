package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.idem.store.s3.UploadPlan.Body;
import dev.idem.store.s3.UploadPlan.PartSha256;
import java.net.URI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The upload decision table ({@link UploadPlan#choose}), row by row: each row's inputs and the whole plan
 * they must give, at the thresholds' edges, so a row decided otherwise fails. Thresholds are kept apart
 * (HEAD first from 3 MiB, parts above 6 MiB, parts of 5 MiB) so that no rule can pass for another.
 */
class UploadPlanTest {
  private static final long MIB = 1024 * 1024;
  private static final S3StoreOptions OPTIONS = S3StoreOptions.builder().headFirstThreshold(3 * MIB)
      .multipartThreshold(6 * MIB).partSize(5 * MIB).uploadParallelism(3).build();

  @ParameterizedTest(name = "{0} bytes, ranges {1}, {2}, verifies sha256 {3}, racing {4}")
  @CsvSource({
      // size,  ranges, endpoint,         sha256 hdr, racing | headFirst, multipart, partSize, body, partSha256, versions, requires
      "0,       false, http://h:9000,     false, false, false, false, 1,       SIGNED_SHA256,    NONE,         false, false",
      "3145727, true,  https://h,         false, false, false, false, 3145727, SIGNED_SHA256,    NONE,         false, false",
      "3145728, true,  http://h:9000,     true,  false, true,  false, 3145728, CHECKSUM_SHA256,  NONE,         false, false",
      "6291456, false, https://h,         true,  true,  true,  false, 6291456, CHECKSUM_SHA256,  NONE,         true,  true",
      "6291456, true,  http://h:9000,     false, true,  true,  false, 6291456, SIGNED_SHA256,    NONE,         true,  true",
      "6291457, true,  https://h,         false, false, true,  true,  5242880, CRC32C_OVER_TLS,  NONE,         true,  false",
      "6291457, false, HTTPS://h:9000,    true,  true,  true,  true,  5242880, CRC32C_OVER_TLS,  NONE,         true,  true",
      "6291457, true,  http://h:9000,     false, false, true,  true,  5242880, SIGNED_SHA256,    IN_HASH_PASS, true,  false",
      "6291457, true,  HTTP://127.0.0.1,  true,  true,  true,  true,  5242880, SIGNED_SHA256,    IN_HASH_PASS, true,  true",
      "6291457, false, http://h:9000,     false, false, true,  true,  5242880, SIGNED_SHA256,    AS_SENT,      true,  false",
      "6291457, false, http://h:9000,     true,  true,  true,  true,  5242880, SIGNED_SHA256,    AS_SENT,      true,  true",
  })
  void choose_eachRowOfTheTable(long size, boolean readsRanges, String endpoint, boolean verifiesChecksumSha256,
      boolean appliesRacingCreates, boolean headFirst, boolean multipart, long partSize, Body body,
      PartSha256 partSha256, boolean checksVersions, boolean requiresVersion) {
    UploadPlan chosen = UploadPlan.choose(size, readsRanges, URI.create(endpoint),
        new ProbeAnswers(verifiesChecksumSha256, appliesRacingCreates), OPTIONS);
    assertEquals(new UploadPlan(size, headFirst, multipart, partSize, 3, body, partSha256, checksVersions,
        requiresVersion), chosen);
  }

  /** A part is one byte array: a part size S3 allows beyond the largest array is cut to it. */
  @Test
  void choose_partSizeBeyondAnArray_cutToTheLargestArray() {
    S3StoreOptions huge = S3StoreOptions.builder().partSize(S3StoreOptions.MAX_PART_SIZE)
        .multipartThreshold(S3StoreOptions.MAX_PART_SIZE).build();
    UploadPlan plan = UploadPlan.choose(S3StoreOptions.MAX_PART_SIZE + 1, true, URI.create("https://h"),
        ProbeAnswers.NONE, huge);
    assertEquals(Integer.MAX_VALUE - 16, plan.partSize());
    assertEquals(3, plan.parts());
  }

  @Test
  void parts_countsTheSlices_oneForEmptyContent() {
    assertEquals(1, UploadPlan.choose(0, false, URI.create("https://h"), ProbeAnswers.NONE, OPTIONS).parts());
    assertEquals(1, UploadPlan.choose(6 * MIB, false, URI.create("https://h"), ProbeAnswers.NONE, OPTIONS).parts());
    assertEquals(2, UploadPlan.choose(6 * MIB + 1, false, URI.create("https://h"), ProbeAnswers.NONE, OPTIONS).parts());
    assertEquals(2, UploadPlan.choose(10 * MIB, false, URI.create("https://h"), ProbeAnswers.NONE, OPTIONS).parts());
    assertEquals(3, UploadPlan.choose(10 * MIB + 1, false, URI.create("https://h"), ProbeAnswers.NONE, OPTIONS).parts());
  }
}
