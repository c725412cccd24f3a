package dev.idem.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Locale;

/** What the run ran on, for the header of the table. */
record Machine(int cpus, String cpuModel, String memory, String dataDir, String fileSystem, String os,
    String jdk, String load) {
  static Machine describe(Path dataDir) {
    return new Machine(
        Runtime.getRuntime().availableProcessors(),
        firstValue(Paths.get("/proc/cpuinfo"), "model name"),
        memory(firstValue(Paths.get("/proc/meminfo"), "MemTotal")),
        dataDir.toString(),
        BenchDirs.fileSystemType(dataDir),
        System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
        System.getProperty("java.vm.vendor") + " " + System.getProperty("java.vm.name") + " "
            + System.getProperty("java.runtime.version"),
        loadAverage());
  }

  /** {@code "24683584 kB"} as {@code "23.5 GiB"}. */
  private static String memory(String memTotal) {
    String[] f = memTotal.split("\\s+");
    try {
      return String.format(Locale.ROOT, "%.1f GiB", Long.parseLong(f[0]) / (1024.0 * 1024.0));
    } catch (NumberFormatException e) {
      return memTotal;
    }
  }

  static String loadAverage() {
    try {
      String[] f = Files.readString(Paths.get("/proc/loadavg")).trim().split("\\s+");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  private static String firstValue(Path file, String field) {
    try {
      for (String line : Files.readAllLines(file)) {
        if (line.startsWith(field)) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException e) {
      // not Linux: leave it unknown
    }
    return "unknown";
  }
}
