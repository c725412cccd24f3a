package dev.idem.store.s3.internal.client;

import dev.idem.core.store.Payload;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import java.util.zip.CRC32C;

/**
 * Passes through exactly {@code length} bytes and, before handing out the last of them, checks that the
 * source ends there and that everything read has the declared CRC32C: the checksum taken in the same
 * pass as the SHA-256 the request signs, so the bytes sent are checked against the bytes hashed without
 * a second SHA-256. Any mismatch (the file grew, shrank or changed) is a {@link
 * Payload.ChangedWhileReadingException}, wrapped so the client knows not to retry it; since it is thrown
 * before the last byte is handed to the HTTP client, the request never completes and nothing is
 * written, even on a server that checks neither the signed hash nor anything else.
 */
final class VerifyingInputStream extends FilterInputStream {
  private final String sha256;
  private final int expectedCrc;
  private final long length;
  private final String what;
  private final CRC32C crc = new CRC32C();
  private long remaining;
  private boolean verified;

  VerifyingInputStream(InputStream in, long length, String sha256, int expectedCrc, String what) {
    super(in);
    this.length = length;
    this.remaining = length;
    this.sha256 = sha256;
    this.expectedCrc = expectedCrc;
    this.what = what;
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    int n = read(one, 0, 1);
    return n == -1 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    if (remaining == 0) {
      verifyEnd();
      return -1;
    }
    int n;
    try {
      n = in.read(b, off, (int) Math.min(len, remaining));
    } catch (IOException e) {
      throw new RequestBody.LocalBodyException(e);
    }
    if (n == -1) {
      throw changed("it ended after " + (length - remaining) + " of " + length + " bytes");
    }
    crc.update(b, off, n);
    remaining -= n;
    if (remaining == 0) {
      verifyEnd();
    }
    return n;
  }

  @Override
  public long skip(long n) {
    return 0;
  }

  @Override
  public boolean markSupported() {
    return false;
  }

  private void verifyEnd() throws IOException {
    if (verified) {
      return;
    }
    int extra;
    try {
      extra = in.read();
    } catch (IOException e) {
      throw new RequestBody.LocalBodyException(e);
    }
    if (extra != -1) {
      throw changed("it had more than " + length + " bytes");
    }
    int actual = (int) crc.getValue();
    if (actual != expectedCrc) {
      throw changed("the bytes sent had crc32c " + hex(actual) + ", the bytes hashed " + hex(expectedCrc));
    }
    verified = true;
  }

  private IOException changed(String how) {
    return new RequestBody.LocalBodyException(Payload.ChangedWhileReadingException.notAsHashed(what, sha256, how));
  }

  private static String hex(int crc) {
    return String.format(Locale.ROOT, "%08x", crc);
  }
}
