package dev.idem.cli;

import dev.idem.core.store.Payload;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A payload that counts the bytes a store reads from it to write them, so {@code idem publish} can
 * report an upload's progress (bytes, total, rate) on stderr. The count is of bytes read through
 * {@link #open()} and {@link #openRange}: the hash taken before the upload reads the inner payload
 * directly and is not counted; an S3 multipart upload reads each part before sending it, so the count
 * leads the network by at most the parts in flight. Reads are forwarded unchanged; the count is
 * thread-safe (parts are read on several threads).
 */
final class CountingPayload implements Payload {
  private static final double KIB = 1024.0;
  private static final double MIB = KIB * KIB;

  private final Payload inner;
  private final AtomicLong read = new AtomicLong();

  CountingPayload(Payload inner) {
    this.inner = inner;
  }

  /** Bytes read through this payload's streams so far. */
  long bytesRead() {
    return read.get();
  }

  @Override
  public long size() throws IOException {
    return inner.size();
  }

  @Override
  public String sha256() throws IOException {
    return inner.sha256();
  }

  /** The hash's pass reads the inner payload: not counted, as for {@link #sha256()}. */
  @Override
  public String sha256(Observer observer) throws IOException {
    return inner.sha256(observer);
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
    double unit = total >= MIB ? MIB : total >= KIB ? KIB : 1;
    String name = total >= MIB ? "MiB" : total >= KIB ? "KiB" : "bytes";
    double rate = elapsedMillis <= 0 ? 0 : bytes / unit * 1000.0 / elapsedMillis;
    return String.format(Locale.ROOT, unit == 1 ? "%.0f of %.0f %s sent, %.0f %s/s (%ds)"
        : "%.1f of %.1f %s sent, %.1f %s/s (%ds)", bytes / unit, total / unit, name, rate, name, elapsedMillis / 1000);
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
