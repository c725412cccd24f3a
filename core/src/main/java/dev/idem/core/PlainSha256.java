package dev.idem.core;

import java.security.MessageDigest;
import java.util.Arrays;

/**
 * SHA-256 (FIPS 180-4) in plain Java, a {@link MessageDigest} made without the security providers.
 * Exists because the first {@code MessageDigest.getInstance("SHA-256")} of a JVM initialises them,
 * which costs a short command more than everything else it does after its command line
 * (BENCHMARKS.md, start time). {@link Sha256#newDigest(long)} hands it
 * out for small inputs until the JVM has made a provider's digest; after that, and for large inputs,
 * the provider's is the one to use (the JIT's SHA intrinsics apply to it, not to this class).
 * Guarantee: the same 32 bytes as the provider's SHA-256 for every input, however it is split into
 * updates ({@code PlainSha256Test}, {@code PlainSha256Properties}). Not thread-safe, like any digest.
 */
final class PlainSha256 extends MessageDigest {
  /** Round constants: the first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
  private static final int[] K = new int[64];
  /** Initial hash value: the same of the square roots of the first 8 primes. */
  private static final int[] H0 = new int[8];

  static {
    int found = 0;
    for (int n = 2; found < 64; n++) {
      if (isPrime(n)) {
        K[found] = fractionBits(StrictMath.cbrt(n));
        if (found < 8) {
          H0[found] = fractionBits(StrictMath.sqrt(n));
        }
        found++;
      }
    }
  }

  private final int[] h = H0.clone();
  private final int[] w = new int[64];
  /** The bytes of an unfinished block, {@code buffered} of them. */
  private final byte[] block = new byte[64];
  private int buffered;
  /** Bytes hashed so far, for the length in the padding. */
  private long length;

  PlainSha256() {
    super("SHA-256");
  }

  private static boolean isPrime(int n) {
    for (int d = 2; d * d <= n; d++) {
      if (n % d == 0) {
        return false;
      }
    }
    return true;
  }

  private static int fractionBits(double root) {
    return (int) (long) ((root - Math.floor(root)) * 0x1p32);
  }

  @Override
  protected int engineGetDigestLength() {
    return 32;
  }

  @Override
  protected void engineUpdate(byte input) {
    block[buffered++] = input;
    length++;
    if (buffered == 64) {
      compress(block, 0);
      buffered = 0;
    }
  }

  @Override
  protected void engineUpdate(byte[] input, int offset, int len) {
    length += len;
    int end = offset + len;
    if (buffered > 0) {
      int take = Math.min(64 - buffered, len);
      System.arraycopy(input, offset, block, buffered, take);
      buffered += take;
      offset += take;
      if (buffered < 64) {
        return;
      }
      compress(block, 0);
      buffered = 0;
    }
    for (; end - offset >= 64; offset += 64) {
      compress(input, offset);
    }
    System.arraycopy(input, offset, block, 0, end - offset);
    buffered = end - offset;
  }

  @Override
  protected byte[] engineDigest() {
    // Padding: 0x80, zeros, then the length in bits as 8 big-endian bytes, to a multiple of 64 bytes.
    long bits = length * 8;
    block[buffered++] = (byte) 0x80;
    if (buffered > 56) {
      Arrays.fill(block, buffered, 64, (byte) 0);
      compress(block, 0);
      buffered = 0;
    }
    Arrays.fill(block, buffered, 56, (byte) 0);
    for (int i = 0; i < 8; i++) {
      block[63 - i] = (byte) (bits >>> (8 * i));
    }
    compress(block, 0);
    byte[] out = new byte[32];
    for (int i = 0; i < 8; i++) {
      out[4 * i] = (byte) (h[i] >>> 24);
      out[4 * i + 1] = (byte) (h[i] >>> 16);
      out[4 * i + 2] = (byte) (h[i] >>> 8);
      out[4 * i + 3] = (byte) h[i];
    }
    engineReset();
    return out;
  }

  @Override
  protected void engineReset() {
    System.arraycopy(H0, 0, h, 0, 8);
    buffered = 0;
    length = 0;
  }

  /** One 64-byte block of {@code p} from {@code at} into the hash state. */
  private void compress(byte[] p, int at) {
    for (int t = 0; t < 16; t++) {
      int i = at + 4 * t;
      w[t] = (p[i] & 0xff) << 24 | (p[i + 1] & 0xff) << 16 | (p[i + 2] & 0xff) << 8 | (p[i + 3] & 0xff);
    }
    for (int t = 16; t < 64; t++) {
      int s0 = Integer.rotateRight(w[t - 15], 7) ^ Integer.rotateRight(w[t - 15], 18) ^ (w[t - 15] >>> 3);
      int s1 = Integer.rotateRight(w[t - 2], 17) ^ Integer.rotateRight(w[t - 2], 19) ^ (w[t - 2] >>> 10);
      w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    int a = h[0];
    int b = h[1];
    int c = h[2];
    int d = h[3];
    int e = h[4];
    int f = h[5];
    int g = h[6];
    int hh = h[7];
    for (int t = 0; t < 64; t++) {
      int sum1 = Integer.rotateRight(e, 6) ^ Integer.rotateRight(e, 11) ^ Integer.rotateRight(e, 25);
      int choose = (e & f) ^ (~e & g);
      int t1 = hh + sum1 + choose + K[t] + w[t];
      int sum0 = Integer.rotateRight(a, 2) ^ Integer.rotateRight(a, 13) ^ Integer.rotateRight(a, 22);
      int majority = (a & b) ^ (a & c) ^ (b & c);
      int t2 = sum0 + majority;
      hh = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
  }
}
