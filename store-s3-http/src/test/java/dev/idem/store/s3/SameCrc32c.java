package dev.idem.store.s3;

import java.util.zip.CRC32C;

/**
 * Forges other bytes of the same length and CRC32C, to show that a check by CRC alone is no defence
 * against a deliberate rewrite. For equal lengths {@code crc(a ^ d) = crc(a) ^ L(d)} with {@code L}
 * linear over GF(2), and {@code L} maps the 32 bits of any 4 consecutive bytes one-to-one (a CRC-32
 * detects every burst of up to 32 bits); so after flipping a bit at one place, the 4 bytes at another
 * can be solved for to cancel its effect.
 */
final class SameCrc32c {
  private SameCrc32c() {}

  /** A copy of {@code a} with one bit flipped at {@code changeAt} and the 4 bytes at {@code fixAt} set to keep its CRC32C. */
  static byte[] forge(byte[] a, int changeAt, int fixAt) {
    if (Math.abs(changeAt - fixAt) < 4) {
      throw new IllegalArgumentException("the change and the fix overlap");
    }
    int base = crc(a);
    byte[] b = a.clone();
    b[changeAt] ^= 1;
    int target = crc(b) ^ base; // what the 4 bytes at fixAt must cancel
    // Column i: the effect on the CRC of flipping bit i of the 4 bytes at fixAt.
    int[] columns = new int[32];
    for (int i = 0; i < 32; i++) {
      byte[] c = a.clone();
      c[fixAt + i / 8] ^= (byte) (1 << (i % 8));
      columns[i] = crc(c) ^ base;
    }
    int solution = solve(columns, target);
    for (int i = 0; i < 32; i++) {
      if ((solution >>> i & 1) != 0) {
        b[fixAt + i / 8] ^= (byte) (1 << (i % 8));
      }
    }
    if (crc(b) != base) {
      throw new AssertionError("forged bytes do not keep the CRC32C");
    }
    return b;
  }

  /** The set of columns (as bits) whose XOR is {@code target}: Gaussian elimination over GF(2). */
  private static int solve(int[] columns, int target) {
    int[] rows = columns.clone();
    int[] picks = new int[32];
    for (int i = 0; i < 32; i++) {
      picks[i] = 1 << i;
    }
    int rank = 0;
    for (int bit = 31; bit >= 0 && rank < 32; bit--) {
      int pivot = -1;
      for (int r = rank; r < 32; r++) {
        if ((rows[r] >>> bit & 1) != 0) {
          pivot = r;
          break;
        }
      }
      if (pivot < 0) {
        continue;
      }
      swap(rows, rank, pivot);
      swap(picks, rank, pivot);
      for (int r = 0; r < 32; r++) {
        if (r != rank && (rows[r] >>> bit & 1) != 0) {
          rows[r] ^= rows[rank];
          picks[r] ^= picks[rank];
        }
      }
      rank++;
    }
    int solution = 0;
    int left = target;
    for (int r = 0; r < rank; r++) {
      int top = 31 - Integer.numberOfLeadingZeros(rows[r]);
      if ((left >>> top & 1) != 0) {
        left ^= rows[r];
        solution ^= picks[r];
      }
    }
    if (left != 0) {
      throw new AssertionError("no 4 bytes cancel the change (rank " + rank + ")");
    }
    return solution;
  }

  private static void swap(int[] a, int i, int j) {
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
  }

  private static int crc(byte[] b) {
    CRC32C c = new CRC32C();
    c.update(b);
    return (int) c.getValue();
  }
}
