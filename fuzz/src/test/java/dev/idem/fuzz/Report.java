package dev.idem.fuzz;

import java.util.List;

/** The failure message of a scenario: its story, then the broken contracts. */
final class Report {
  private Report() {}

  static String of(Scenario scenario, List<String> violations) {
    StringBuilder b = new StringBuilder("\n").append(scenario).append("\nbroke:\n");
    violations.stream().distinct().limit(12).forEach(v -> b.append("  - ").append(v).append('\n'));
    return b.toString();
  }
}
