package dev.idem.core.store;

import dev.idem.core.Sha256;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.Objects;

/**
 * The bytes a task produced, readable as many times as a store needs (an S3 PUT must sign the
 * SHA-256 before it sends the body; a filesystem publish hashes while it copies).
 *
 * <p>A file payload is hashed once, lazily. Stores re-hash while they copy and must refuse to publish
 * when the two hashes differ (the file changed under them), so a payload's bytes and its declared
 * SHA-256 never disagree in the store.
 *
 * <p>A payload may also carry the schema version of its format ({@link #withSchema}; the publisher
 * sets it from the spec). Stores record it create-only with the object and with divergence evidence,
 * and report it in {@link HistoryEntry#schema()}, so the scan can tell a schema bump's overlap from
 * keying drift. It travels on the payload rather than as another {@code putIfAbsent} argument so that
 * a store wrapper that forwards the payload forwards the schema too; a store that ignores it records
 * none, which the scan treats as unknown (the cautious reading).
 */
public interface Payload {

  long size() throws IOException;

  /** Lowercase hex SHA-256 of the content. */
  String sha256() throws IOException;

  /** Receives the content's bytes, in order, during {@link #sha256(Observer)}. */
  @FunctionalInterface
  interface Observer {
    /** The next {@code len} bytes of the content, at {@code b[off]}; valid only during the call. */
    void update(byte[] b, int off, int len);
  }

  /**
   * {@link #sha256()}, with the content read once in order and every byte of it handed to {@code
   * observer}: a store takes a cheaper checksum of its own in the same pass (S3: a CRC32C per part), so
   * it can later check that the bytes it sends are the bytes hashed without hashing them again.
   *
   * <p>The observer sees exactly the bytes the returned hash describes. The default reads {@link #open()}
   * and hashes what it reads, and refuses a content that does not hash to {@link #sha256()}; a file
   * payload hashes in this one pass (no pass before it when its hash was not asked for yet), an
   * in-memory one only hands its bytes over.
   *
   * @throws ChangedWhileReadingException when the bytes read do not hash to the hash declared before
   */
  default String sha256(Observer observer) throws IOException {
    String declared = sha256();
    String actual;
    try (InputStream in = open()) {
      actual = hashObserving(in, observer, size());
    }
    if (!actual.equals(declared)) {
      throw new ChangedWhileReadingException(toString(), declared, actual);
    }
    return declared;
  }

  /** A new stream over the whole content; the caller closes it. */
  InputStream open() throws IOException;

  /**
   * Whether {@link #openRange} reads a range directly (a file, a byte array), so a store may read
   * several ranges at once; false means it reads from the start and skips (a stream source), and a
   * store should read the content in order through {@link #open()} instead.
   */
  default boolean readsRanges() {
    return false;
  }

  /**
   * A new stream over the content's bytes from {@code offset}, at most {@code length} of them (fewer
   * when the content ends first, which a store reads as the content having changed). The default reads
   * {@link #open()} from the start and skips; the caller closes the stream.
   *
   * @throws IllegalArgumentException when {@code offset} or {@code length} is negative
   */
  default InputStream openRange(long offset, long length) throws IOException {
    requireRange(offset, length);
    InputStream in = open();
    try {
      in.skipNBytes(offset);
    } catch (java.io.EOFException e) {
      in.close();
      return InputStream.nullInputStream();
    }
    return new BoundedInputStream(in, length);
  }

  /** The schema version of the content's format (contract G2), or {@code null} when not given. */
  default Integer schema() {
    return null;
  }

  /**
   * Where a store writing this payload reports its phases and the bytes it really sent; {@link
   * WriteProgress#NONE} unless the caller asked ({@code idem publish} does, for its progress line). It
   * travels on the payload, like {@link #schema()}, so a store wrapper that forwards the payload forwards it.
   */
  default WriteProgress progress() {
    return WriteProgress.NONE;
  }

  /** The same bytes, declared to be in format {@code schema}. */
  default Payload withSchema(int schema) {
    if (schema < 0) {
      throw new IllegalArgumentException("schema version must be >= 0, was " + schema);
    }
    Payload bytes = this;
    return new Payload() {
      @Override
      public long size() throws IOException {
        return bytes.size();
      }

      @Override
      public String sha256() throws IOException {
        return bytes.sha256();
      }

      @Override
      public String sha256(Observer observer) throws IOException {
        return bytes.sha256(observer);
      }

      @Override
      public InputStream open() throws IOException {
        return bytes.open();
      }

      @Override
      public boolean readsRanges() {
        return bytes.readsRanges();
      }

      @Override
      public InputStream openRange(long offset, long length) throws IOException {
        return bytes.openRange(offset, length);
      }

      @Override
      public Integer schema() {
        return schema;
      }

      @Override
      public WriteProgress progress() {
        return bytes.progress();
      }

      @Override
      public String toString() {
        return bytes.toString();
      }
    };
  }

  /** Raised by a store when the bytes it read do not hash to {@link #sha256()}. */
  final class ChangedWhileReadingException extends IOException {
    private static final long serialVersionUID = 1L;

    public ChangedWhileReadingException(String what, String declared, String actual) {
      super(what + " changed while it was being published (sha256 " + declared + " then " + actual + ")");
    }

    private ChangedWhileReadingException(String message) {
      super(message);
    }

    /**
     * For a store that checks the bytes it sends against a cheaper checksum taken in the same pass as
     * the hash (see {@link Payload#sha256(Observer)}): it knows the bytes differ, not what they hash to.
     *
     * @param how what differed, e.g. {@code part 3 (bytes 10485760-11534335) read crc32c 5e6f7a8b, hashed 1a2b3c4d}
     */
    public static ChangedWhileReadingException notAsHashed(String what, String declared, String how) {
      return new ChangedWhileReadingException(
          what + " changed while it was being published (sha256 " + declared + ", then " + how + ")");
    }
  }

  /** Hashes {@code in} to its end, handing every byte read to {@code observer}; the caller closes it. */
  private static String hashObserving(InputStream in, Observer observer, long expectedBytes) throws IOException {
    MessageDigest md = Sha256.newDigest(expectedBytes);
    byte[] buf = new byte[64 * 1024];
    for (int n; (n = in.read(buf)) != -1; ) {
      md.update(buf, 0, n);
      observer.update(buf, 0, n);
    }
    return Sha256.hex(md.digest());
  }

  static Payload ofBytes(byte[] bytes) {
    byte[] copy = Objects.requireNonNull(bytes, "bytes").clone();
    String sha = Sha256.of(copy);
    return new Payload() {
      @Override
      public long size() {
        return copy.length;
      }

      @Override
      public String sha256() {
        return sha;
      }

      /** The bytes are this payload's own copy and cannot change: handed over, not hashed again. */
      @Override
      public String sha256(Observer observer) {
        observer.update(copy, 0, copy.length);
        return sha;
      }

      @Override
      public InputStream open() {
        return new ByteArrayInputStream(copy);
      }

      @Override
      public boolean readsRanges() {
        return true;
      }

      @Override
      public InputStream openRange(long offset, long length) {
        requireRange(offset, length);
        int from = (int) Math.min(offset, copy.length);
        return new ByteArrayInputStream(copy, from, (int) Math.min(length, copy.length - from));
      }

      @Override
      public String toString() {
        return "bytes(" + copy.length + ")";
      }
    };
  }

  /** A payload read from {@code file}, which must stay unchanged until the publish returns. */
  static Payload ofFile(Path file) {
    Objects.requireNonNull(file, "file");
    return new Payload() {
      private String sha;

      @Override
      public long size() throws IOException {
        return Files.size(file);
      }

      @Override
      public synchronized String sha256() throws IOException {
        if (sha == null) {
          try (InputStream in = open()) {
            sha = Sha256.of(in, size());
          }
        }
        return sha;
      }

      /** One pass: the hash of the bytes the observer saw; refused when an earlier hash differs. */
      @Override
      public synchronized String sha256(Observer observer) throws IOException {
        String actual;
        try (InputStream in = open()) {
          actual = hashObserving(in, observer, size());
        }
        if (sha != null && !sha.equals(actual)) {
          throw new ChangedWhileReadingException(toString(), sha, actual);
        }
        sha = actual;
        return sha;
      }

      @Override
      public InputStream open() throws IOException {
        return Files.newInputStream(file);
      }

      @Override
      public boolean readsRanges() {
        return true;
      }

      /** Positions a channel at {@code offset}: no bytes before the range are read. */
      @Override
      public InputStream openRange(long offset, long length) throws IOException {
        requireRange(offset, length);
        FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
        try {
          ch.position(offset);
        } catch (IOException | RuntimeException e) {
          ch.close();
          throw e;
        }
        return new BoundedInputStream(Channels.newInputStream(ch), length);
      }

      @Override
      public String toString() {
        return file.toString();
      }
    };
  }

  private static void requireRange(long offset, long length) {
    if (offset < 0 || length < 0) {
      throw new IllegalArgumentException("range must have offset and length >= 0, was " + offset + "+" + length);
    }
  }
}
