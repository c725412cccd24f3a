import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * A mutation run's outcome with timeouts counted apart from kills, from PIT's {@code mutations.xml}.
 *
 * <p>Why: PIT counts a mutant whose tests ran past the time limit as detected, the same as one a
 * failing test killed, and its score and {@code index.html} do not tell the two apart. A timeout is
 * often a mutant that made a loop endless, a real detection; it can also be a test JVM slowed down by
 * the machine's load, or by a child process an earlier minion left holding a lock, which kills nothing.
 * So the summary gives both scores: PIT's, and the one that counts only mutants a failing test killed,
 * and lists the classes whose mutants timed out.
 *
 * <p>Usage (the mutation profile of store-fs runs it after PIT):
 * {@code java scripts/PitSummary.java MODULE/target/pit-reports/mutations.xml [SUMMARY_FILE]}: prints the
 * summary and, when given, writes it to SUMMARY_FILE too.
 */
public class PitSummary {
  /** The statuses PIT counts as detected although no test failed. */
  private static final List<String> DETECTED_OTHERWISE = List.of("TIMED_OUT", "MEMORY_ERROR", "RUN_ERROR");
  private static final List<String> SHOWN =
      List.of("KILLED", "TIMED_OUT", "MEMORY_ERROR", "RUN_ERROR", "SURVIVED", "NO_COVERAGE");

  public static void main(String[] args) throws Exception {
    Path xml = Path.of(args[0]);
    if (!Files.exists(xml)) {
      System.out.println("pit summary: no " + xml + " (PIT skipped or found nothing to mutate)");
      return;
    }
    NodeList mutations = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(xml.toFile())
        .getElementsByTagName("mutation");
    Map<String, Integer> byStatus = new LinkedHashMap<>();
    for (String s : SHOWN) {
      byStatus.put(s, 0);
    }
    Map<String, Integer> timeoutsByClass = new TreeMap<>();
    for (int i = 0; i < mutations.getLength(); i++) {
      Element m = (Element) mutations.item(i);
      String status = m.getAttribute("status");
      byStatus.merge(status, 1, Integer::sum);
      if (status.equals("TIMED_OUT")) {
        String mutated = m.getElementsByTagName("mutatedClass").item(0).getTextContent();
        timeoutsByClass.merge(mutated, 1, Integer::sum);
      }
    }
    int total = mutations.getLength();
    int killed = byStatus.get("KILLED");
    int otherwise = DETECTED_OTHERWISE.stream().mapToInt(byStatus::get).sum();
    int covered = total - byStatus.get("NO_COVERAGE");
    StringBuilder out = new StringBuilder();
    out.append("mutants ").append(total).append(": killed by a failing test ").append(killed)
        .append(", timed out ").append(byStatus.get("TIMED_OUT"))
        .append(", memory error ").append(byStatus.get("MEMORY_ERROR"))
        .append(", run error ").append(byStatus.get("RUN_ERROR"))
        .append(", survived ").append(byStatus.get("SURVIVED"))
        .append(", no coverage ").append(byStatus.get("NO_COVERAGE")).append('\n');
    byStatus.forEach((status, n) -> {
      if (n > 0 && !SHOWN.contains(status)) {
        out.append("  also ").append(status).append(' ').append(n).append('\n');
      }
    });
    out.append("score ").append(percent(killed + otherwise, total)).append(" as PIT counts it (timeouts and errors")
        .append(" as killed); ").append(percent(killed, total)).append(" killed by a failing test alone\n");
    out.append("test strength ").append(percent(killed + otherwise, covered)).append(" as PIT counts it; ")
        .append(percent(killed, covered)).append(" killed by a failing test alone\n");
    timeoutsByClass.forEach((c, n) -> out.append("  timed out in ").append(c).append(": ").append(n).append('\n'));
    System.out.print(out);
    if (args.length > 1) {
      Files.writeString(Path.of(args[1]), out, StandardCharsets.UTF_8);
    }
  }

  private static String percent(int part, int whole) {
    return whole == 0 ? "-" : String.format(java.util.Locale.ROOT, "%.1f %%", 100.0 * part / whole);
  }
}
