package dev.idem.cli;

import dev.idem.core.store.Payload;
import dev.idem.core.store.WriteProgress;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A payload that tells {@code idem publish} what its store is doing with it, for the progress line on
 * stderr. A store that reports its phases ({@link WriteProgress}: S3) is shown as it reports them, hashing,
 * uploading with the bytes it really sent, or skipping a key that already holds an object; the bytes its
 * hash pass reads are counted as hashed, never as sent. For a store that reports nothing (the filesystem,
 * which hashes while it copies), the bytes it reads through {@link #open()} and {@link #openRange} are
 * what it wrote. Reads are forwarded unchanged; the counts are thread-safe (parts are read and sent on
 * several threads).
 */
final class CountingPayload implements Payload, WriteProgress {
  private static final double KIB = 1024.0;
  private static final double MIB = KIB * KIB;

  private final Payload inner;
  private final AtomicLong read = new AtomicLong();
  private final AtomicLong hashed = new AtomicLong();
  private final AtomicLong sent = new AtomicLong();
  private volatile Phase phase;
  private volatile long uploadingSince;

  CountingPayload(Payload inner) {
    this.inner = inner;
  }

  /** Bytes read through this payload's streams so far. */
  long bytesRead() {
    return read.get();
  }

  /** Bytes sent: as the store reported them, or, from a store that reports no phases, as it read them. */
  long bytesSent() {
    return phase == null ? read.get() : sent.get();
  }

  @Override
  public WriteProgress progress() {
    return this;
  }

  @Override
  public void phase(Phase next) {
    if (next == Phase.UPLOADING && phase != Phase.UPLOADING) {
      uploadingSince = System.nanoTime();
    }
    phase = next;
  }

  @Override
  public void sent(long bytes) {
    sent.addAndGet(bytes);
  }

  /**
   * The progress line for a publish of {@code total} bytes, {@code elapsedMillis} in: {@code hashing: 120.0
   * of 300.0 MiB read, nothing sent yet (5s)}, {@code uploading: 64.0 of 300.0 MiB sent, 5.8 MiB/s (11s)}
   * (the rate since the upload began), {@code skipping: the key already holds an object, comparing; 0 of
   * 300.0 MiB sent (12s)}; from a store that reports no phases, {@link #status(long, long, long)}.
   */
  String status(long total, long elapsedMillis) {
    Phase now = phase;
    if (now == null) {
      return status(read.get(), total, elapsedMillis);
    }
    return switch (now) {
      case HASHING -> "hashing: " + amount(hashed.get(), total) + " read, nothing sent yet (" + elapsedMillis / 1000 + "s)";
      case SKIPPING -> "skipping: the key already holds an object, comparing; " + amount(sent.get(), total) + " sent ("
          + elapsedMillis / 1000 + "s)";
      case UPLOADING -> "uploading: " + status(sent.get(), total, elapsedMillis,
          Math.max(0, (System.nanoTime() - uploadingSince) / 1_000_000));
    };
  }

  @Override
  public long size() throws IOException {
    return inner.size();
  }

  @Override
  public String sha256() throws IOException {
    return inner.sha256();
  }

  /** The hash's pass reads the inner payload: counted as hashed, never as read or sent. */
  @Override
  public String sha256(Observer observer) throws IOException {
    return inner.sha256((b, off, len) -> {
      hashed.addAndGet(len);
      observer.update(b, off, len);
    });
  }

  @Override
  public InputStream open() throws IOException {
    return new Counting(inner.open());
  }

  @Override
  public boolean readsRanges() {
    return inner.readsRanges();
  }

  @Override
  public InputStream openRange(long offset, long length) throws IOException {
    return new Counting(inner.openRange(offset, length));
  }

  @Override
  public Integer schema() {
    return inner.schema();
  }

  @Override
  public String toString() {
    return inner.toString();
  }

  /**
   * The progress line of an upload: {@code 48.0 of 160.0 MiB sent, 31.2 MiB/s (5s)}, in the unit of the
   * total (bytes, KiB or MiB, so a small payload does not read {@code 0.0 of 0.0 MiB}); the rate is the
   * average since the start.
   */
  static String status(long bytes, long total, long elapsedMillis) {
    return status(bytes, total, elapsedMillis, elapsedMillis);
  }

  /** {@link #status(long, long, long)} with the rate averaged over {@code rateMillis}. */
  private static String status(long bytes, long total, long elapsedMillis, long rateMillis) {
    double unit = unit(total);
    String name = unitName(total);
    double rate = rateMillis <= 0 ? 0 : bytes / unit * 1000.0 / rateMillis;
    return String.format(Locale.ROOT, unit == 1 ? "%s sent, %.0f %s/s (%ds)" : "%s sent, %.1f %s/s (%ds)",
        amount(bytes, total), rate, name, elapsedMillis / 1000);
  }

  /** {@code 48.0 of 160.0 MiB}, in the unit of the total. */
  private static String amount(long bytes, long total) {
    double unit = unit(total);
    return String.format(Locale.ROOT, unit == 1 ? "%.0f of %.0f %s" : "%.1f of %.1f %s", bytes / unit, total / unit,
        unitName(total));
  }

  private static double unit(long total) {
    return total >= MIB ? MIB : total >= KIB ? KIB : 1;
  }

  private static String unitName(long total) {
    return total >= MIB ? "MiB" : total >= KIB ? "KiB" : "bytes";
  }

  private final class Counting extends FilterInputStream {
    Counting(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        read.incrementAndGet();
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = in.read(b, off, len);
      if (n > 0) {
        read.addAndGet(n);
      }
      return n;
    }

    @Override
    public long skip(long n) throws IOException {
      return in.skip(n);
    }
  }
}
