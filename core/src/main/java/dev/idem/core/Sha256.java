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

  private Sha256() {}

  /** A fresh digest; every JDK ships SHA-256, so its absence is a broken runtime, not an input error. */
  public static MessageDigest newDigest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JDK has no SHA-256", e);
    }
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
    return hex(newDigest().digest(bytes));
  }

  /** Hashes a stream to its end; the caller closes it. */
  public static String of(InputStream in) throws IOException {
    MessageDigest md = newDigest();
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
