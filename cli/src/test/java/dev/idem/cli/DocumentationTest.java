package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The repository's documents hold together as a reader follows them: every relative link in every
 * Markdown file names a file that exists and, when it names a section, a heading of that file (as
 * GitHub makes anchors of headings); the README opens with the two commands a fresh checkout runs
 * first; and the table of where each contract is tested exists once, so two copies cannot drift apart.
 */
class DocumentationTest {
  static final Path ROOT = Path.of("").toAbsolutePath().getParent();
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");
  private static final Pattern FENCE = Pattern.compile("(?s)```.*?```");

  /** Every Markdown file of the repository, build output and hidden directories left out. */
  static List<Path> markdownFiles() throws IOException {
    List<Path> found = new ArrayList<>();
    Files.walkFileTree(ROOT, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
        String name = dir.getFileName().toString();
        boolean skip = !dir.equals(ROOT) && (name.equals("target") || name.startsWith(".") || name.equals("node_modules"));
        return skip ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
        if (file.getFileName().toString().endsWith(".md")) {
          found.add(file);
        }
        return FileVisitResult.CONTINUE;
      }
    });
    found.sort(null);
    return found;
  }

  /** GitHub's anchor of a heading: lower case, punctuation but '-' and '_' dropped, spaces as '-'. */
  static String anchorOf(String heading) {
    String s = heading.strip().toLowerCase(Locale.ROOT);
    s = s.replaceAll("[^\\p{L}\\p{N}_\\- ]", "");
    return s.replace(' ', '-');
  }

  static Set<String> anchors(Path md) {
    Set<String> found = new HashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    boolean inFence = false;
    for (String line : read(md).split("\n", -1)) {
      if (line.startsWith("```")) {
        inFence = !inFence;
        continue;
      }
      Matcher m = HEADING.matcher(line);
      if (!inFence && m.matches()) {
        String a = anchorOf(m.group(1));
        int n = seen.merge(a, 1, Integer::sum) - 1;
        found.add(n == 0 ? a : a + "-" + n);
      }
    }
    return found;
  }

  static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void markdownLinks_everyFileAndSectionExists() throws IOException {
    List<String> broken = new ArrayList<>();
    Map<Path, Set<String>> cache = new HashMap<>();
    List<Path> files = markdownFiles();
    assertTrue(files.contains(ROOT.resolve("README.md")), "the documents are found: " + files);
    for (Path md : files) {
      Matcher m = LINK.matcher(FENCE.matcher(read(md)).replaceAll(""));
      while (m.find()) {
        String link = m.group(1);
        if (link.matches("^[a-z][a-z0-9+.-]*:.*")) {
          continue;
        }
        int hash = link.indexOf('#');
        String file = hash < 0 ? link : link.substring(0, hash);
        Path target = file.isEmpty() ? md : md.getParent().resolve(file).normalize();
        String where = ROOT.relativize(md) + ": (" + link + ")";
        if (!Files.exists(target)) {
          broken.add(where + " names no file");
        } else if (hash >= 0 && target.toString().endsWith(".md")
            && !cache.computeIfAbsent(target, DocumentationTest::anchors).contains(link.substring(hash + 1))) {
          broken.add(where + " names no heading of " + ROOT.relativize(target));
        }
      }
    }
    assertEquals(List.of(), broken, "broken links");
  }

  @Test
  void anchorOf_asGitHubMakesThem() {
    assertEquals("idem-run-in-detail", anchorOf("`idem run` in detail"));
    assertEquals("readers-of-one-schema-get---latest-of-schema", anchorOf("Readers of one schema: `get --latest-of-schema`"));
    assertEquals("publish-p1p8", anchorOf("Publish (P1–P8)"));
    assertEquals("s3-minio-and-ceph-rgw", anchorOf("S3, MinIO and Ceph RGW"));
  }

  @Test
  void readme_opensWithTheDemoAndTheTestCommand() {
    String readme = read(ROOT.resolve("README.md"));
    Matcher block = Pattern.compile("(?s)```sh\n(.*?)```").matcher(readme);
    assertTrue(block.find(), "the README has a shell block");
    assertEquals(readme.indexOf("```"), block.start(), "the first block of the README is the shell block");
    List<String> commands = block.group(1).lines().map(l -> l.replaceAll("\\s+#.*", "").strip()).toList();
    assertEquals(List.of("./idem demo", "./mvnw -B verify"), commands);
    assertTrue(Files.isExecutable(ROOT.resolve("idem")), "./idem is there to run");
    assertTrue(Files.isExecutable(ROOT.resolve("mvnw")), "./mvnw is there to run");
  }

  @Test
  void contractsToTestsTable_existsOnceInDesign() throws IOException {
    List<Path> holders = new ArrayList<>();
    for (Path md : markdownFiles()) {
      if (read(md).contains("\n| contract | tests |\n")) {
        holders.add(ROOT.relativize(md));
      }
    }
    assertEquals(List.of(Path.of("docs", "DESIGN.md")), holders);
  }
}
