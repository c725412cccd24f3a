package dev.idem.store.s3;

import dev.idem.core.store.Payload;
import java.io.IOException;
import java.util.Locale;
import java.util.zip.CRC32C;

/**
 * The one pass idem makes over a payload before uploading it: its SHA-256 (recorded in {@code
 * idem-sha256} and, for a single PUT, signed in {@code x-amz-content-sha256}) and, in the same read, a
 * CRC32C of each part the upload will send (one part for a single PUT).
 *
 * <p>Exists so the upload can check that the bytes it sends are the bytes hashed without hashing them a
 * second time: CRC32C runs at memory speed (intrinsified), SHA-256 at about 1–2 GB/s, and a part's
 * boundaries are fixed by the part size, so the part checksums can be taken before any part is read for
 * sending. A mismatch while sending means the payload changed after it was hashed ({@link
 * Payload.ChangedWhileReadingException}); CRC32C finds every change of up to 32 bits in a part and
 * misses a random change with probability 2<sup>-32</sup>, and the SHA-256 the object is recorded under
 * is still of the bytes read here.
 *
 * <p>Guarantees: {@link #of} returns only when the pass read exactly {@code size} bytes; a payload that
 * grew or shrank since its size was taken is refused there.
 */
final class ContentChecksums implements Payload.Observer {
  private final long size;
  private final long partSize;
  private final int[] crcs;
  private final CRC32C crc = new CRC32C();
  private long seen;
  private int part;
  private long leftInPart;

  private ContentChecksums(long size, long partSize) {
    this.size = size;
    this.partSize = partSize;
    long parts = size == 0 ? 1 : (size + partSize - 1) / partSize;
    this.crcs = new int[Math.toIntExact(parts)];
    this.leftInPart = Math.min(partSize, size);
  }

  /**
   * Reads {@code payload} once: its SHA-256 and the CRC32C of each {@code partSize} slice.
   *
   * @param partSize the upload's part size, or at least {@code size} for a single PUT
   * @throws Payload.ChangedWhileReadingException when the payload is not {@code size} bytes long now
   */
  static Digest of(Payload payload, long size, long partSize) throws IOException {
    if (size < 0 || partSize <= 0) {
      throw new IllegalArgumentException("size must be >= 0 and part size > 0, were " + size + ", " + partSize);
    }
    ContentChecksums sums = new ContentChecksums(size, partSize);
    String sha = payload.sha256(sums);
    if (sums.seen != size) {
      throw Payload.ChangedWhileReadingException.notAsHashed(payload.toString(), sha,
          "it was " + sums.seen + " bytes long when hashed, " + size + " bytes before");
    }
    sums.finishPart();
    return new Digest(sha, size, partSize, sums.crcs);
  }

  @Override
  public void update(byte[] b, int off, int len) {
    while (len > 0) {
      if (seen >= size) {
        seen += len; // past the declared end: only counted, and refused by of()
        return;
      }
      int n = (int) Math.min(len, leftInPart);
      crc.update(b, off, n);
      seen += n;
      leftInPart -= n;
      off += n;
      len -= n;
      if (leftInPart == 0) {
        finishPart();
      }
    }
  }

  private void finishPart() {
    if (part < crcs.length && (leftInPart == 0 || seen == size)) {
      crcs[part++] = (int) crc.getValue();
      crc.reset();
      leftInPart = Math.min(partSize, size - seen);
    }
  }

  /**
   * What the pass found.
   *
   * @param sha256 lowercase hex SHA-256 of the content
   * @param partSize the slice each CRC32C covers (the last one shorter)
   */
  record Digest(String sha256, long size, long partSize, int[] crcs) {

    /** The CRC32C of part {@code part} (1-based), as {@link java.util.zip.CRC32C#getValue()}'s low 32 bits. */
    int crc32c(int part) {
      return crcs[part - 1];
    }

    /** How many parts the checksums cover: 1 for a single PUT (even of nothing). */
    int parts() {
      return crcs.length;
    }
  }

  /** A CRC32C as 8 lowercase hex digits, for messages. */
  static String hex(int crc) {
    return String.format(Locale.ROOT, "%08x", crc);
  }
}
