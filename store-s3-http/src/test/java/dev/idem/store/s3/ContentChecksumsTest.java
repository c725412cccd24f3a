package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.Sha256;
import dev.idem.core.store.Payload;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * The hash pass's part checksums are exactly the CRC32C of each part-sized slice, however the payload
 * hands its bytes over (one array, or reads that straddle part boundaries), and a payload whose length
 * is not the size taken before is refused. The parts' SHA-256s taken on a second thread are those of
 * their slices, and a payload whose ranges differ from its whole read is refused.
 */
class ContentChecksumsTest {

  /** A stream payload that hands its bytes over in reads of {@code chunk} bytes. */
  private static Payload chunked(byte[] bytes, int chunk) {
    return new Payload() {
      @Override
      public long size() {
        return bytes.length;
      }

      @Override
      public String sha256() {
        return Sha256.of(bytes);
      }

      @Override
      public InputStream open() {
        return new ByteArrayInputStream(bytes) {
          @Override
          public synchronized int read(byte[] b, int off, int len) {
            return super.read(b, off, Math.min(len, chunk));
          }
        };
      }
    };
  }

  /** A plan whose hash pass covers slices of {@code partSize}; the rest of a plan does not shape the pass. */
  private static UploadPlan slices(long size, long partSize) {
    return plan(size, partSize, UploadPlan.PartSha256.NONE);
  }

  private static UploadPlan plan(long size, long partSize, UploadPlan.PartSha256 partSha256) {
    return new UploadPlan(size, false, size > partSize, partSize, 1, UploadPlan.Body.SIGNED_SHA256, partSha256,
        false, false);
  }

  /** The pass a plan asks for: the parts' SHA-256s only where it takes them in the hash pass. */
  @Test
  void of_takesPartSha256_onlyWhenThePlanSaysInTheHashPass() throws IOException {
    byte[] bytes = new byte[23];
    new Random(7).nextBytes(bytes);
    for (UploadPlan.PartSha256 where : UploadPlan.PartSha256.values()) {
      UploadPlan plan = plan(23, 5, where);
      ContentChecksums.Digest d = ContentChecksums.of(Payload.ofBytes(bytes), plan, Runnable::run);
      assertEquals(plan, d.plan());
      assertEquals(Sha256.of(bytes), d.sha256(), where.toString());
      assertEquals(crc(bytes, 20, 23), d.crc32c(5), where.toString());
      assertEquals(where == UploadPlan.PartSha256.IN_HASH_PASS ? Sha256.of(Arrays.copyOfRange(bytes, 5, 10)) : null,
          d.partSha256(2), where.toString());
    }
  }

  private static int crc(byte[] b, int from, int to) {
    CRC32C c = new CRC32C();
    c.update(b, from, to - from);
    return (int) c.getValue();
  }

  @ParameterizedTest(name = "{0} bytes, parts of {1}, reads of {2}")
  @CsvSource({"0,5,3", "1,5,3", "5,5,3", "6,5,7", "23,5,3", "25,5,5", "100,7,64", "100,100,13", "100,1000,9"})
  void of_eachPartsCrc32cIsThatOfItsSlice(int size, int partSize, int chunk) throws IOException {
    byte[] bytes = new byte[size];
    new Random(size * 31L + partSize).nextBytes(bytes);
    for (Payload p : new Payload[] {Payload.ofBytes(bytes), chunked(bytes, chunk)}) {
      ContentChecksums.Digest d = ContentChecksums.whole(p, slices(size, partSize));
      assertEquals(Sha256.of(bytes), d.sha256());
      assertEquals(size, d.size());
      int parts = size == 0 ? 1 : (size + partSize - 1) / partSize;
      assertEquals(parts, d.parts());
      for (int part = 1; part <= parts; part++) {
        int from = (part - 1) * partSize;
        assertEquals(crc(bytes, from, Math.min(size, from + partSize)), d.crc32c(part), "part " + part);
      }
    }
  }

  @Test
  void of_payloadLongerOrShorterThanItsSize_refused() {
    byte[] bytes = new byte[20];
    Arrays.fill(bytes, (byte) 7);
    Payload.ChangedWhileReadingException longer = assertThrows(Payload.ChangedWhileReadingException.class,
        () -> ContentChecksums.whole(chunked(bytes, 3), slices(15, 5)));
    assertTrue(longer.getMessage().endsWith("then it was 20 bytes long when hashed, 15 bytes before)"),
        longer.getMessage());
    Payload.ChangedWhileReadingException shorter = assertThrows(Payload.ChangedWhileReadingException.class,
        () -> ContentChecksums.whole(Payload.ofBytes(bytes), slices(21, 5)));
    assertTrue(shorter.getMessage().endsWith("then it was 20 bytes long when hashed, 21 bytes before)"),
        shorter.getMessage());
  }

  @Test
  void of_payloadFailsWhileRead_failureReachesTheCaller() {
    IOException disk = new IOException("Input/output error");
    Payload failing = new Payload() {
      @Override
      public long size() {
        return 100;
      }

      @Override
      public String sha256() {
        return Sha256.EMPTY;
      }

      @Override
      public InputStream open() {
        // Forty bytes, then the disk fails (bulk reads too: InputStream's default would swallow it).
        return new InputStream() {
          private int left = 40;

          @Override
          public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) == -1 ? -1 : one[0];
          }

          @Override
          public int read(byte[] b, int off, int len) throws IOException {
            if (left <= 0) {
              throw disk;
            }
            int n = Math.min(len, left);
            left -= n;
            return n;
          }
        };
      }
    };
    assertEquals(disk, assertThrows(IOException.class, () -> ContentChecksums.whole(failing, slices(100, 30))));
  }

  @Test
  void of_badSizes_refused() {
    assertThrows(IllegalArgumentException.class, () -> ContentChecksums.whole(Payload.ofBytes(new byte[0]), slices(-1, 5)));
    assertThrows(IllegalArgumentException.class, () -> ContentChecksums.whole(Payload.ofBytes(new byte[0]), slices(0, 0)));
  }

  @Test
  void hex_eightLowercaseDigits() {
    assertEquals("00000001", ContentChecksums.hex(1));
    assertEquals("edba9b9c", ContentChecksums.hex(0xedba9b9c));
  }

  /** Opens a payload's content from its start. */
  @FunctionalInterface
  private interface WholeRead {
    InputStream open() throws IOException;
  }

  /** Opens a range of a payload's content. */
  @FunctionalInterface
  private interface RangeRead {
    InputStream open(long offset, long length) throws IOException;
  }

  /** A payload of {@code whole}'s size and hash that reads ranges, its two kinds of read as given. */
  private static Payload ranged(byte[] whole, WholeRead read, RangeRead ranges) {
    return new Payload() {
      @Override
      public long size() {
        return whole.length;
      }

      @Override
      public String sha256() {
        return Sha256.of(whole);
      }

      @Override
      public InputStream open() throws IOException {
        return read.open();
      }

      @Override
      public boolean readsRanges() {
        return true;
      }

      @Override
      public InputStream openRange(long offset, long length) throws IOException {
        return ranges.open(offset, length);
      }
    };
  }

  /** A payload whose whole read gives {@code whole} and whose ranges are read from {@code ranges}. */
  private static Payload ranged(byte[] whole, byte[] ranges) {
    return ranged(whole, () -> new ByteArrayInputStream(whole), (offset, length) -> {
      int from = (int) Math.min(offset, ranges.length);
      return new ByteArrayInputStream(ranges, from, (int) Math.min(length, ranges.length - from));
    });
  }

  @ParameterizedTest(name = "{0} bytes, parts of {1}")
  @CsvSource({"0,5", "1,5", "5,5", "6,5", "23,5", "100,7", "3000000,1048577"})
  void withPartSha256_eachPartsSha256IsThatOfItsSlice_onAnotherThread(int size, int partSize) throws Exception {
    byte[] bytes = new byte[size];
    new Random(size * 17L + partSize).nextBytes(bytes);
    ExecutorService pool = Executors.newCachedThreadPool();
    try {
      for (Executor executor : new Executor[] {pool, Runnable::run}) {
        ContentChecksums.Digest d = ContentChecksums.withPartSha256(Payload.ofBytes(bytes), slices(size, partSize), executor);
        ContentChecksums.Digest plain = ContentChecksums.whole(Payload.ofBytes(bytes), slices(size, partSize));
        assertEquals(plain.sha256(), d.sha256());
        assertEquals(Arrays.toString(plain.crcs()), Arrays.toString(d.crcs()));
        for (int part = 1; part <= d.parts(); part++) {
          int from = (part - 1) * partSize;
          assertEquals(Sha256.of(Arrays.copyOfRange(bytes, from, Math.min(size, from + partSize))), d.partSha256(part),
              "part " + part);
        }
        assertEquals(d.parts(), d.partSha256().length, "one SHA-256 per part");
        assertEquals(null, plain.partSha256(1), "the plain pass takes none");
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void withPartSha256_rangesDifferFromTheWholeRead_refusedNamingThePart() {
    byte[] whole = new byte[23];
    byte[] ranges = whole.clone();
    ranges[12] = 1;
    Payload.ChangedWhileReadingException e = assertThrows(Payload.ChangedWhileReadingException.class,
        () -> ContentChecksums.withPartSha256(ranged(whole, ranges), slices(23, 5), Runnable::run));
    assertTrue(e.getMessage().contains("sha256 " + Sha256.of(whole) + ", then part 3 read crc32c "
        + ContentChecksums.hex(crc(ranges, 10, 15)) + " while its SHA-256 was taken, " + ContentChecksums.hex(crc(whole, 10, 15))
        + " while the whole was hashed"), e.getMessage());
  }

  @Test
  void withPartSha256_lastPartDiffersBetweenTheReads_refused() {
    byte[] whole = new byte[23];
    byte[] ranges = whole.clone();
    ranges[22] = 1;
    Payload.ChangedWhileReadingException e = assertThrows(Payload.ChangedWhileReadingException.class,
        () -> ContentChecksums.withPartSha256(ranged(whole, ranges), slices(23, 5), Runnable::run));
    assertTrue(e.getMessage().contains("then part 5 read crc32c "), e.getMessage());
  }

  @Test
  void withPartSha256_rangeEndsEarly_refusedNamingThePart() {
    byte[] whole = new byte[23];
    Payload.ChangedWhileReadingException e = assertThrows(Payload.ChangedWhileReadingException.class,
        () -> ContentChecksums.withPartSha256(ranged(whole, new byte[12]), slices(23, 5), Runnable::run));
    assertTrue(e.getMessage().endsWith("then part 3 ended after 2 of its 5 bytes while its SHA-256 was taken)"),
        e.getMessage());
  }

  @Test
  void withPartSha256_secondReadFails_failureReachesTheCaller() {
    IOException disk = new IOException("Input/output error");
    byte[] whole = new byte[10];
    Payload p = ranged(whole, () -> new ByteArrayInputStream(whole), (offset, length) -> {
      throw disk;
    });
    assertEquals(disk, assertThrows(IOException.class, () -> ContentChecksums.withPartSha256(p, slices(10, 5), Runnable::run)));
  }

  /**
   * Ranges whose first read counts {@code reading} down and then blocks until its thread is interrupted,
   * when it counts {@code stopped} down and fails.
   */
  private static RangeRead blockedUntilInterrupted(CountDownLatch reading, CountDownLatch stopped) {
    return (offset, length) -> new InputStream() {
      @Override
      public int read() {
        throw new UnsupportedOperationException();
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        reading.countDown();
        try {
          new CountDownLatch(1).await();
          throw new AssertionError("never counted down");
        } catch (InterruptedException e) {
          stopped.countDown();
          throw new InterruptedIOException("stopped");
        }
      }
    };
  }

  @Test
  void withPartSha256_secondReadThrowsUnchecked_reachesTheCaller() {
    IllegalStateException bug = new IllegalStateException("a payload's bug");
    byte[] whole = new byte[10];
    Payload p = ranged(whole, () -> new ByteArrayInputStream(whole), (offset, length) -> {
      throw bug;
    });
    assertEquals(bug, assertThrows(IllegalStateException.class,
        () -> ContentChecksums.withPartSha256(p, slices(10, 5), Runnable::run)));
  }

  /**
   * The caller is interrupted while it waits for the second read: it stops that read, keeps its
   * interrupt, and throws {@link InterruptedIOException}.
   */
  @Test
  void withPartSha256_interruptedWaitingForTheSecondRead_stopsItAndKeepsTheInterrupt() throws Exception {
    byte[] whole = new byte[10];
    CountDownLatch firstDone = new CountDownLatch(1);
    CountDownLatch reading = new CountDownLatch(1);
    CountDownLatch stopped = new CountDownLatch(1);
    Payload p = ranged(whole, () -> new ByteArrayInputStream(whole) {
      @Override
      public void close() {
        firstDone.countDown();
      }
    }, blockedUntilInterrupted(reading, stopped));
    ExecutorService pool = Executors.newCachedThreadPool();
    java.util.concurrent.atomic.AtomicReference<Throwable> thrown = new java.util.concurrent.atomic.AtomicReference<>();
    java.util.concurrent.atomic.AtomicBoolean keptInterrupt = new java.util.concurrent.atomic.AtomicBoolean();
    Thread caller = new Thread(() -> {
      try {
        ContentChecksums.withPartSha256(p, slices(10, 5), pool);
      } catch (Throwable t) {
        thrown.set(t);
        keptInterrupt.set(Thread.currentThread().isInterrupted());
      }
    });
    try {
      caller.start();
      // Both reads under way (a second read cancelled before it starts never runs at all).
      assertTrue(firstDone.await(30, TimeUnit.SECONDS), "the first read ended");
      assertTrue(reading.await(30, TimeUnit.SECONDS), "the second read started");
      caller.interrupt();
      caller.join(30_000);
      assertTrue(thrown.get() instanceof InterruptedIOException, String.valueOf(thrown.get()));
      assertTrue(keptInterrupt.get(), "the caller's interrupt is kept");
      assertTrue(stopped.await(30, TimeUnit.SECONDS), "the second read was interrupted");
    } finally {
      pool.shutdownNow();
    }
  }

  /** The first read fails: the second is stopped (interrupted), not left reading. */
  @Test
  void withPartSha256_firstReadFails_secondStopped() throws Exception {
    IOException disk = new IOException("Input/output error");
    CountDownLatch reading = new CountDownLatch(1);
    CountDownLatch stopped = new CountDownLatch(1);
    Payload p = ranged(new byte[10], () -> {
      try {
        reading.await();
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
      throw disk;
    }, blockedUntilInterrupted(reading, stopped));
    ExecutorService pool = Executors.newCachedThreadPool();
    try {
      assertEquals(disk, assertThrows(IOException.class, () -> ContentChecksums.withPartSha256(p, slices(10, 5), pool)));
      assertTrue(stopped.await(30, TimeUnit.SECONDS), "the second read was interrupted");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void withPartSha256_payloadWithoutRanges_refused() {
    assertThrows(IllegalArgumentException.class,
        () -> ContentChecksums.withPartSha256(chunked(new byte[3], 1), slices(3, 5), Runnable::run));
  }
}
