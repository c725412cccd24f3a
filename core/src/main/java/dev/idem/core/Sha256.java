package dev.idem.core;

import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * SHA-256 and lowercase hex, the one content identity idem uses everywhere (keys, stored-object
 * hashes, pointer documents, divergence evidence).
 */
public final class Sha256 {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  /** Hex of the SHA-256 of nothing; what an empty payload hashes to. */
  public static final String EMPTY = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

  /** The plain budget a JVM starts with: 1 MiB, 15-55 ms of cold plain-Java hashing on C1 (measured under load). */
  static final long PLAIN_BUDGET = 1 << 20;

  /**
   * Bytes this JVM may still hash with {@link PlainSha256} before it uses the security providers'
   * SHA-256. A short-lived command (a key, a pointer document, a small payload) fits in it and never
   * starts the providers, a noticeable part of its start; a long-lived JVM spends it once and then uses
   * the provider's digest, which the JIT compiles to the CPU's SHA instructions, several times as fast.
   * Negative once the providers' digest has been made: they are up, and plain Java has no gain left.
   * Updated without atomicity: a race only moves the switch by an input or two.
   */
  private static volatile long plainBytesLeft = PLAIN_BUDGET;

  private Sha256() {}

  /**
   * A fresh digest from the security providers; every JDK ships SHA-256, so its absence is a broken
   * runtime, not an input error. Once this has been called the providers are up, and {@link
   * #newDigest(long)} uses them too.
   */
  public static MessageDigest newDigest() {
    plainBytesLeft = -1;
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JDK has no SHA-256", e);
    }
  }

  /**
   * A fresh digest for an input of about {@code expectedBytes} (negative: unknown): {@link PlainSha256}
   * while the input fits what is left of this JVM's plain budget, else {@link #newDigest()}. Both give
   * the same bytes; the size is only a hint, an input longer than announced is hashed all the same.
   */
  public static MessageDigest newDigest(long expectedBytes) {
    return takePlain(expectedBytes) ? new PlainSha256() : newDigest();
  }

  /** Sets what is left of the plain budget; for tests. */
  static void setPlainBudget(long bytes) {
    plainBytesLeft = bytes;
  }

  /** Whether {@code bytes} fit the plain budget; if they do, they are taken from it. */
  static boolean takePlain(long bytes) {
    long left = plainBytesLeft;
    if (bytes < 0 || bytes > left) {
      return false;
    }
    plainBytesLeft = left - bytes;
    return true;
  }

  public static String hex(byte[] bytes) {
    char[] out = new char[bytes.length * 2];
    for (int i = 0; i < bytes.length; i++) {
      out[2 * i] = HEX[(bytes[i] >> 4) & 0xf];
      out[2 * i + 1] = HEX[bytes[i] & 0xf];
    }
    return new String(out);
  }

  public static String of(byte[] bytes) {
    return hex(newDigest(bytes.length).digest(bytes));
  }

  /** Hashes a stream of unknown length to its end; the caller closes it. */
  public static String of(InputStream in) throws IOException {
    return of(in, -1);
  }

  /** Hashes a stream of about {@code expectedBytes} (negative: unknown) to its end; the caller closes it. */
  public static String of(InputStream in, long expectedBytes) throws IOException {
    MessageDigest md = newDigest(expectedBytes);
    byte[] buf = new byte[64 * 1024];
    for (int n; (n = in.read(buf)) != -1; ) {
      md.update(buf, 0, n);
    }
    return hex(md.digest());
  }

  /** True for exactly 64 lowercase hex digits. */
  public static boolean isHex(String s) {
    if (s == null || s.length() != 64) {
      return false;
    }
    for (int i = 0; i < 64; i++) {
      char c = s.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }
}
