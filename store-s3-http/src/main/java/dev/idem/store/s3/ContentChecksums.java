package dev.idem.store.s3;

import dev.idem.core.Sha256;
import dev.idem.core.store.Payload;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.security.MessageDigest;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.zip.CRC32C;

/**
 * The one pass idem makes over a payload before uploading it, as its {@link UploadPlan} says: its SHA-256
 * (recorded in {@code idem-sha256}, and for a single PUT the hash the server checks the body against,
 * {@link UploadPlan.Body}) and, in the same read, a CRC32C of each part the upload will send (one part
 * for a single PUT).
 *
 * <p>Exists so the upload can check that the bytes it sends are the bytes hashed without hashing them a
 * second time: CRC32C runs at memory speed (intrinsified), SHA-256 at about 1–2 GB/s, and a part's
 * boundaries are fixed by the part size, so the part checksums can be taken before any part is read for
 * sending. A mismatch while sending means the payload changed after it was hashed ({@link
 * Payload.ChangedWhileReadingException}); CRC32C finds every change of up to 32 bits in a part and
 * misses a random change with probability 2<sup>-32</sup>, and the SHA-256 the object is recorded under
 * is still of the bytes read here.
 *
 * <p>Parts sent over plain http carry their own SHA-256 as well (a CRC32C is no defence against someone
 * who rewrites a part in transit). Where the payload reads ranges ({@link UploadPlan.PartSha256#IN_HASH_PASS})
 * {@link #withPartSha256} takes those on a second thread from a second
 * read of the payload's ranges while the first thread takes the whole SHA-256, so with a core free for
 * it the pass takes about the time of one SHA-256, and the upload hashes nothing; the second read's CRC32Cs must equal the
 * first's, so both hashes describe the same bytes.
 *
 * <p>Guarantees: {@link #of} returns only when the pass read exactly {@code size} bytes; a payload that
 * grew or shrank since its size was taken is refused there, and one that changed between the two reads
 * of {@link #withPartSha256} too.
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
   * The pass {@code plan} asks for: {@link #whole}, or {@link #withPartSha256} where the plan takes the
   * parts' SHA-256s in the hash pass ({@link UploadPlan.PartSha256#IN_HASH_PASS}), on {@code executor}.
   *
   * @throws Payload.ChangedWhileReadingException when the payload is not {@code plan.size()} bytes long now,
   *     or changed between the two reads
   */
  static Digest of(Payload payload, UploadPlan plan, Executor executor) throws IOException {
    return plan.partSha256() == UploadPlan.PartSha256.IN_HASH_PASS
        ? withPartSha256(payload, plan, executor)
        : whole(payload, plan);
  }

  /**
   * Reads {@code payload} once: its SHA-256 and the CRC32C of each of {@code plan}'s slices ({@link
   * UploadPlan#partSize}).
   *
   * @throws Payload.ChangedWhileReadingException when the payload is not {@code plan.size()} bytes long now
   */
  static Digest whole(Payload payload, UploadPlan plan) throws IOException {
    long size = plan.size();
    if (size < 0 || plan.partSize() <= 0) {
      throw new IllegalArgumentException("size must be >= 0 and part size > 0, were " + size + ", " + plan.partSize());
    }
    ContentChecksums sums = new ContentChecksums(size, plan.partSize());
    String sha = payload.sha256(sums);
    if (sums.seen != size) {
      throw Payload.ChangedWhileReadingException.notAsHashed(payload.toString(), sha,
          "it was " + sums.seen + " bytes long when hashed, " + size + " bytes before");
    }
    sums.finishPart();
    return new Digest(plan, sha, sums.crcs, null);
  }

  /**
   * {@link #whole}, and the SHA-256 of each part, taken on {@code executor} from a second read of {@code
   * payload}'s ranges ({@link Payload#readsRanges()} must hold) while this thread reads it whole.
   *
   * @throws Payload.ChangedWhileReadingException as {@link #whole}, and when a part's bytes differed
   *     between the two reads (their CRC32Cs) or a part ended early in the second
   */
  static Digest withPartSha256(Payload payload, UploadPlan plan, Executor executor) throws IOException {
    if (!payload.readsRanges()) {
      throw new IllegalArgumentException(payload + " does not read ranges");
    }
    PartHashes hashes = new PartHashes(payload, plan.size(), plan.partSize());
    FutureTask<Void> second = new FutureTask<>(() -> {
      hashes.read();
      return null;
    });
    executor.execute(second);
    Digest first;
    try {
      first = whole(payload, plan);
    } catch (IOException | RuntimeException | Error e) {
      second.cancel(true);
      throw e;
    }
    try {
      second.get();
    } catch (InterruptedException e) {
      second.cancel(true);
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while hashing the parts of " + payload);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof RuntimeException re) {
        throw re;
      }
      throw (Error) cause;
    }
    if (hashes.endedEarly != null) {
      throw Payload.ChangedWhileReadingException.notAsHashed(payload.toString(), first.sha256(), hashes.endedEarly);
    }
    for (int part = 1; part <= first.parts(); part++) {
      if (hashes.crcs[part - 1] != first.crc32c(part)) {
        throw Payload.ChangedWhileReadingException.notAsHashed(payload.toString(), first.sha256(), "part " + part
            + " read crc32c " + hex(hashes.crcs[part - 1]) + " while its SHA-256 was taken, "
            + hex(first.crc32c(part)) + " while the whole was hashed");
      }
    }
    return new Digest(plan, first.sha256(), first.crcs(), hashes.sha256);
  }

  /** The second read of {@link #withPartSha256}: each part's SHA-256 and CRC32C, from its own range. */
  private static final class PartHashes {
    private final Payload payload;
    private final long size;
    private final long partSize;
    private final String[] sha256;
    private final int[] crcs;
    /** Set when a part's range ended before its length: the payload shrank between the reads. */
    private String endedEarly;

    PartHashes(Payload payload, long size, long partSize) {
      this.payload = payload;
      this.size = size;
      this.partSize = partSize;
      int parts = Math.toIntExact(size == 0 ? 1 : (size + partSize - 1) / partSize);
      this.sha256 = new String[parts];
      this.crcs = new int[parts];
    }

    void read() throws IOException {
      byte[] buffer = new byte[(int) Math.min(1 << 20, Math.max(partSize, 1))];
      MessageDigest md = Sha256.newDigest();
      CRC32C crc = new CRC32C();
      for (int part = 1; part <= sha256.length; part++) {
        long offset = (part - 1) * partSize;
        long length = Math.min(partSize, size - offset);
        long left = length;
        try (InputStream in = payload.openRange(offset, length)) {
          while (left > 0) {
            if (Thread.interrupted()) {
              throw new InterruptedIOException("stopped hashing the parts of " + payload);
            }
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
            if (n < 0) {
              endedEarly = "part " + part + " ended after " + (length - left) + " of its " + length
                  + " bytes while its SHA-256 was taken";
              return;
            }
            md.update(buffer, 0, n);
            crc.update(buffer, 0, n);
            left -= n;
          }
        }
        sha256[part - 1] = Sha256.hex(md.digest());
        crcs[part - 1] = (int) crc.getValue();
        crc.reset();
      }
    }
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
   * What the pass found, and the plan it was taken for, which the upload of these bytes follows.
   *
   * @param sha256 lowercase hex SHA-256 of the content
   * @param crcs the CRC32C of each of the plan's slices ({@link UploadPlan#partSize}, the last one shorter)
   * @param partSha256 each part's SHA-256 in lowercase hex ({@link #withPartSha256}), or {@code null}
   */
  record Digest(UploadPlan plan, String sha256, int[] crcs, String[] partSha256) {

    /** The size of the content hashed. */
    long size() {
      return plan.size();
    }

    /** The SHA-256 of part {@code part} (1-based) taken in the pass, or {@code null} when none was. */
    String partSha256(int part) {
      return partSha256 == null ? null : partSha256[part - 1];
    }

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
