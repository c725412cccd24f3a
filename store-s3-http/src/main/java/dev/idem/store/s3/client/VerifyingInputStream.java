package dev.idem.store.s3.client;

import dev.idem.core.Sha256;
import dev.idem.core.store.Payload;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;

/**
 * Passes through exactly {@code length} bytes and, before handing out the last of them, checks that the
 * source ends there and that everything read hashes to the declared SHA-256. Any mismatch (the file
 * grew, shrank or changed) is a {@link Payload.ChangedWhileReadingException}, wrapped so the client
 * knows not to retry it.
 */
final class VerifyingInputStream extends FilterInputStream {
  private final String expectedSha;
  private final String what;
  private final MessageDigest digest = Sha256.newDigest();
  private long remaining;
  private boolean verified;

  VerifyingInputStream(InputStream in, long length, String expectedSha, String what) {
    super(in);
    this.remaining = length;
    this.expectedSha = expectedSha;
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
      throw changed();
    }
    digest.update(b, off, n);
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
      digest.update((byte) extra);
      throw changed();
    }
    String actual = Sha256.hex(digest.digest());
    if (!actual.equals(expectedSha)) {
      throw new RequestBody.LocalBodyException(
          new Payload.ChangedWhileReadingException(what, expectedSha, actual));
    }
    verified = true;
  }

  private IOException changed() {
    return new RequestBody.LocalBodyException(
        new Payload.ChangedWhileReadingException(what, expectedSha, Sha256.hex(digest.digest())));
  }
}
