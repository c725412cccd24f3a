package dev.idem.bench;

import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/** The markdown document: header, targets, then one table per group. */
final class ResultsReport {
  private final Machine machine;
  private final Instant start;
  private final List<String[]> targets = new ArrayList<>();
  private final List<Table> tables = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private String endLoad = "unknown";
  private Duration took = Duration.ZERO;

  ResultsReport(Machine machine, Instant start) {
    this.machine = machine;
    this.start = start;
  }

  Table table(String title, String caption, String... header) {
    Table t = new Table(title, caption, header);
    tables.add(t);
    return t;
  }

  void target(String what, String measured, boolean met) {
    targets.add(new String[] {what, measured, met ? "met" : "**missed**"});
  }

  void note(String line) {
    notes.add(line);
  }

  void finish(String load, Duration took) {
    this.endLoad = load;
    this.took = took;
  }

  String markdown() {
    StringBuilder b = new StringBuilder();
    b.append("# idem benchmarks: quick profile\n\n");
    b.append("- Run: ").append(start.truncatedTo(ChronoUnit.SECONDS)).append(", ")
        .append(took.toMinutes()).append(" min ").append(took.toSecondsPart()).append(" s");
    String commit = System.getProperty("idem.bench.commit");
    if (commit != null && !commit.isBlank()) {
      b.append(", commit ").append(commit);
    }
    b.append("; command: `bench/run`\n");
    b.append("- Machine: ").append(machine.cpus()).append(" CPUs (").append(machine.cpuModel()).append("), ")
        .append(machine.memory()).append(" RAM, ").append(machine.os()).append('\n');
    b.append("- Files written to: `").append(machine.dataDir()).append("` (filesystem: ")
        .append(machine.fileSystem()).append(")\n");
    b.append("- JDK: ").append(machine.jdk()).append('\n');
    b.append("- Load average (1/5/15 min) at start: ").append(machine.load()).append("; at end: ")
        .append(endLoad).append('\n');
    for (String n : notes) {
      b.append("- ").append(n).append('\n');
    }
    b.append("- JMH: one fork, short warmup and measurement (see `QuickProfile`). Each time is the median "
        + "of the measurement iterations with their range in brackets; ratios are of medians, except in the "
        + "paired groups (filesystem publish, pointer CAS, S3 PUT time), whose captions say how they are taken. Absolute "
        + "times on a shared 2-core machine are noisy; the ratios of methods run back to back in one group "
        + "are the result.\n\n");
    if (!targets.isEmpty()) {
      Table t = new Table("Targets", "", "target", "measured", "verdict");
      for (String[] row : targets) {
        t.row(row);
      }
      t.render(b);
    }
    for (Table t : tables) {
      t.render(b);
    }
    return b.toString();
  }

  static final class Table {
    private final String title;
    private final String caption;
    private final String[] header;
    private final List<String[]> rows = new ArrayList<>();

    Table(String title, String caption, String... header) {
      this.title = title;
      this.caption = caption;
      this.header = header;
    }

    void row(String... cells) {
      rows.add(cells);
    }

    void render(StringBuilder b) {
      b.append("## ").append(title).append("\n\n");
      if (!caption.isEmpty()) {
        b.append(caption).append("\n\n");
      }
      b.append("| ").append(String.join(" | ", header)).append(" |\n");
      b.append("|").append("---|".repeat(header.length)).append('\n');
      for (String[] r : rows) {
        b.append("| ").append(String.join(" | ", r)).append(" |\n");
      }
      b.append('\n');
    }
  }
}
