package dev.idem.store.fs;

import dev.idem.core.Sha256;
import dev.idem.core.store.Payload;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Copies a payload into a publish's temporary file while hashing it, and refuses bytes that are not
 * the payload's declared SHA-256 ({@link Payload.ChangedWhileReadingException}): the hash a publish
 * records is always of the bytes it wrote.
 *
 * <p>One full-size copy buffer is kept between publishes, taken atomically so concurrent publishes
 * never share it. A new 64 KiB array per publish was a third of a 1 KiB publish's time on a quiet
 * disk ({@code FsPublishBench}): zeroing it, and the page faults of the fresh heap it lands on. A
 * payload that fits a smaller buffer gets its own, exact-sized one (at least one byte, so a payload
 * declared empty that has bytes is still read, and refused).
 */
final class PayloadCopier {
  static final int BUFFER_BYTES = 64 * 1024;

  /** What was written: the SHA-256 of the bytes and their count. */
  record Copied(String sha256, long size) {}

  private final AtomicReference<byte[]> spare = new AtomicReference<>();

  /**
   * Copies {@code payload} into {@code temp}, forces and closes it.
   *
   * @throws Payload.ChangedWhileReadingException when the bytes read do not hash to the declared SHA-256
   */
  Copied copy(Payload payload, TempFile temp, Path target) throws IOException {
    long declaredSize = payload.size();
    MessageDigest md = Sha256.newDigest(declaredSize);
    long size = 0;
    byte[] buf = take(declaredSize);
    try (InputStream in = payload.open()) {
      for (int n; (n = in.read(buf)) != -1; size += n) {
        md.update(buf, 0, n);
        temp.write(ByteBuffer.wrap(buf, 0, n));
      }
    } finally {
      giveBack(buf);
    }
    temp.forceAndClose();
    String sha = Sha256.hex(md.digest());
    if (!sha.equals(payload.sha256())) {
      throw new Payload.ChangedWhileReadingException(payload + " (publishing " + target + ")", payload.sha256(), sha);
    }
    return new Copied(sha, size);
  }

  private byte[] take(long declaredSize) {
    if (declaredSize < BUFFER_BYTES) {
      return new byte[(int) Math.max(declaredSize, 1)];
    }
    byte[] kept = spare.getAndSet(null);
    return kept != null ? kept : new byte[BUFFER_BYTES];
  }

  private void giveBack(byte[] buf) {
    if (buf.length == BUFFER_BYTES) {
      spare.set(buf);
    }
  }
}
