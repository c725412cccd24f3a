package dev.idem.core.store;

/**
 * What a store tells its caller while it writes a payload ({@link Payload#progress()}), so progress shown
 * to a person is the truth: which phase the write is in, and the bytes really sent, counted once each.
 * Exists because a count of the payload's reads cannot tell them apart: a store reads a payload to hash it
 * (S3: once whole, and over plain http once more by part) before it sends a byte, and may then find the key
 * already holds these bytes and send nothing. A store that reports nothing leaves the caller to count
 * what it reads. Called from any thread; implementations must be thread-safe and quick.
 */
public interface WriteProgress {
  /** What the store is doing with the payload. */
  enum Phase {
    /** Reading the payload to hash it; nothing is sent. */
    HASHING,
    /** Sending the payload's bytes; {@link #sent} counts them. */
    UPLOADING,
    /** The key already holds an object: comparing it, sending none of the payload. */
    SKIPPING
  }

  /** The store entered {@code phase}. */
  void phase(Phase phase);

  /** {@code bytes} more of the payload were sent (a retried request's bytes count again: they were sent again). */
  void sent(long bytes);

  /** Reports nothing. */
  WriteProgress NONE = new WriteProgress() {
    @Override
    public void phase(Phase phase) {}

    @Override
    public void sent(long bytes) {}
  };
}
