package dev.idem.core.store;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * At most {@code left} bytes of a stream, so {@link Payload#openRange} hands out exactly its range;
 * closing it closes the underlying stream (and the file channel under it).
 */
final class BoundedInputStream extends FilterInputStream {
  private long left;

  BoundedInputStream(InputStream in, long left) {
    super(in);
    this.left = left;
  }

  @Override
  public int read() throws IOException {
    if (left <= 0) {
      return -1;
    }
    int b = in.read();
    if (b >= 0) {
      left--;
    }
    return b;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    if (left <= 0) {
      return -1;
    }
    int n = in.read(b, off, (int) Math.min(len, left));
    left -= Math.max(0, n);
    return n;
  }

  @Override
  public long skip(long n) throws IOException {
    long skipped = in.skip(Math.min(n, left));
    left -= Math.max(0, skipped);
    return skipped;
  }

  @Override
  public int available() throws IOException {
    return (int) Math.min(in.available(), left);
  }

  @Override
  public boolean markSupported() {
    return false;
  }
}
