package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The upload settings' defaults and bounds, and that a copy keeps them. */
class S3StoreOptionsTest {

  @Test
  void defaults_headFirstAt8MiBFourPartsAtOnce() {
    S3StoreOptions o = S3StoreOptions.defaults();
    assertEquals(8L * 1024 * 1024, o.headFirstThreshold());
    assertEquals(4, o.uploadParallelism());
    assertTrue(o.toString().contains("headFirstThreshold=8388608, uploadParallelism=4"), o.toString());
  }

  @Test
  void toBuilder_keepsUploadSettings() {
    S3StoreOptions o = S3StoreOptions.builder().headFirstThreshold(0).uploadParallelism(64).build();
    S3StoreOptions copy = o.toBuilder().build();
    assertEquals(0, copy.headFirstThreshold());
    assertEquals(64, copy.uploadParallelism());
    assertEquals(1, S3StoreOptions.builder().uploadParallelism(1).build().uploadParallelism());
    assertEquals(Long.MAX_VALUE, S3StoreOptions.builder().headFirstThreshold(Long.MAX_VALUE).build()
        .headFirstThreshold());
  }

  @Test
  void bounds_refusedAtOnceWithTheValue() {
    assertEquals("head-first threshold must be >= 0, was -1", assertThrows(IllegalArgumentException.class,
        () -> S3StoreOptions.builder().headFirstThreshold(-1)).getMessage());
    assertEquals("upload parallelism must be 1-64, was 0", assertThrows(IllegalArgumentException.class,
        () -> S3StoreOptions.builder().uploadParallelism(0)).getMessage());
    assertEquals("upload parallelism must be 1-64, was 65", assertThrows(IllegalArgumentException.class,
        () -> S3StoreOptions.builder().uploadParallelism(65)).getMessage());
  }
}
