import dev.idem.core.store.Payload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * How long idem's one hash pass over a file payload takes here: {@code Payload.ofFile(f).sha256()} of
 * a fresh random file of BYTES bytes, 10 times to warm up, then 20 timed; prints the best and the mean.
 * BENCHMARKS.md uses it to size what a single S3 PUT must finish before its first byte is sent.
 *
 * <p>Usage (classpath: the core jar or core/target/classes): java -cp CP scripts/Sha256Pass.java BYTES
 */
public class Sha256Pass {
  public static void main(String[] args) throws Exception {
    long size = Long.parseLong(args[0]);
    Path file = Files.createTempFile("sha256-pass", ".bin");
    try {
      byte[] chunk = new byte[1 << 20];
      SplittableRandom random = new SplittableRandom(42);
      try (var out = Files.newOutputStream(file)) {
        for (long left = size; left > 0; left -= chunk.length) {
          random.nextBytes(chunk);
          out.write(chunk, 0, (int) Math.min(chunk.length, left));
        }
      }
      long best = Long.MAX_VALUE;
      long sum = 0;
      for (int i = 0; i < 30; i++) {
        long start = System.nanoTime();
        Payload.ofFile(file).sha256();
        long took = System.nanoTime() - start;
        if (i >= 10) {
          best = Math.min(best, took);
          sum += took;
        }
      }
      System.out.printf("%d bytes: SHA-256 of the file, best %.1f ms, mean %.1f ms (20 after 10 warm-up)%n", size,
          best / 1e6, sum / 20 / 1e6);
    } finally {
      Files.delete(file);
    }
  }
}
