package dev.idem.bench.transfer;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A Java agent that writes, when its JVM exits, how many bytes of heap every thread of that JVM
 * allocated since it started. {@code bench/large-transfers.sh} loads it into each JVM it times (idem's
 * command line and the AWS SDK's transfer) with {@code -javaagent:idem-bench.jar=FILE}, so the bytes
 * allocated are measured the same way on both sides, including threads that ended before the exit.
 *
 * <p>The figure is written by a shutdown hook, which runs on {@code System.exit} and on a return from
 * {@code main}; a JVM killed by a signal writes nothing, and the script reports the figure as missing.
 */
public final class AllocationAgent {
  private AllocationAgent() {}

  /** Installs the hook; {@code args} is the file the total is written to. */
  public static void premain(String args) {
    if (args == null || args.isEmpty()) {
      throw new IllegalArgumentException("AllocationAgent needs the file to write to: -javaagent:JAR=FILE");
    }
    Path out = Path.of(args);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> write(out), "allocation-report"));
  }

  private static void write(Path out) {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    try {
      Files.writeString(out, threads.getTotalThreadAllocatedBytes() + "\n", StandardCharsets.US_ASCII);
    } catch (IOException e) {
      System.err.println("AllocationAgent: cannot write " + out + ": " + e.getMessage());
    }
  }
}
