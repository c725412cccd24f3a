package dev.idem.store.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.Sha256;
import dev.idem.core.store.PutStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The line format (records' content, old ledgers) and its tolerant reader. */
class LedgerTest {
  private static final String SHA = Sha256.EMPTY;

  @TempDir Path dir;

  @Test
  void read_ledgerOfThePreviousVersion_readWithUnknownSchema() throws IOException {
    Path f = dir.resolve("k.log");
    // As the previous version appended them: v1 lines, no schema.
    Files.writeString(f, "v1 2024-09-10T20:27:00.123456789Z CREATED " + SHA + " 0 host:1@x\n"
        + "v1 2024-09-10T20:28:00Z DIVERGENT " + SHA + " 7 w\n");

    assertEquals(List.of(
            new Ledger.Line(Instant.parse("2024-09-10T20:27:00.123456789Z"), PutStatus.CREATED, SHA, 0, "host:1@x", null),
            new Ledger.Line(Instant.parse("2024-09-10T20:28:00Z"), PutStatus.DIVERGENT, SHA, 7, "w", null)),
        Ledger.read(new StorePaths(dir, FsOps.real()), f));
  }

  @Test
  void format_withAndWithoutSchema_v2LinesThatParseBack() {
    Ledger.Line a = new Ledger.Line(Instant.parse("2024-09-10T20:27:00Z"), PutStatus.CREATED, SHA, 5, "hostv2", 3);
    Ledger.Line b = new Ledger.Line(Instant.parse("2024-09-10T20:27:00Z"), PutStatus.IDENTICAL, SHA, 5, "v1", null);
    assertEquals("v2 2024-09-10T20:27:00Z CREATED " + SHA + " 5 3 hostv2\n", a.format());
    assertEquals("v2 2024-09-10T20:27:00Z IDENTICAL " + SHA + " 5 - v1\n", b.format());
    assertEquals(a, Ledger.parse(a.format().strip()).orElseThrow());
    assertEquals(b, Ledger.parse(b.format().strip()).orElseThrow(), "a writer named like a tag is still the writer");
  }

  @Test
  void format_divergentNamingTheObjectItMet_v3LineThatParsesBack() {
    String met = "ab".repeat(32);
    Ledger.Line d = new Ledger.Line(Instant.parse("2024-09-10T20:27:00Z"), PutStatus.DIVERGENT, SHA, 5, "v3", 3, met);
    assertEquals("v3 2024-09-10T20:27:00Z DIVERGENT " + SHA + " 5 3 " + met + " v3\n", d.format());
    assertEquals(d, Ledger.parse(d.format().strip()).orElseThrow());
    for (String bad : List.of("v3 2024-01-01T00:00:00Z CREATED " + SHA + " 1 - " + met + " w",
        "v3 2024-01-01T00:00:00Z DIVERGENT " + SHA + " 1 - abc w", "v3 2024-01-01T00:00:00Z DIVERGENT " + SHA + " 1 - w")) {
      assertTrue(Ledger.parse(bad).isEmpty(), bad);
    }
    assertThrows(IllegalArgumentException.class,
        () -> new Ledger.Line(Instant.EPOCH, PutStatus.IDENTICAL, SHA, 5, "w", null, met));
  }

  @Test
  void read_missingFile_empty() throws IOException {
    assertEquals(List.of(), Ledger.read(new StorePaths(dir, FsOps.real()), dir.resolve("none.log")));
  }

  @Test
  void parse_malformedLines_skipped() {
    for (String bad : List.of("", "v1", "v2 2024-01-01T00:00:00Z CREATED " + SHA + " 1 w",
        "v1 yesterday CREATED " + SHA + " 1 w", "v1 2024-01-01T00:00:00Z MAYBE " + SHA + " 1 w",
        "v1 2024-01-01T00:00:00Z CREATED abc 1 w", "v1 2024-01-01T00:00:00Z CREATED " + SHA + " -1 w",
        "v1 2024-01-01T00:00:00Z CREATED " + SHA + " 1", "v1 2024-01-01T00:00:00Z CREATED " + SHA + " 1 w extra",
        "v1 2024-01-01T00:00:00Z CREATED " + SHA + " 1 -bad", "v2 2024-01-01T00:00:00Z CREATED " + SHA + " 1 x w",
        "v2 2024-01-01T00:00:00Z CREATED " + SHA + " 1 -3 w", "v2 2024-01-01T00:00:00Z CREATED " + SHA + " 1 3 w x")) {
      assertTrue(Ledger.parse(bad).isEmpty(), bad);
    }
  }

  @Test
  void read_tornLineThenLaterAppend_laterRecordKept() throws IOException {
    Path f = dir.resolve("k.log");
    String good = "v1 2024-01-01T00:00:01Z IDENTICAL " + SHA + " 3 w2\n";
    Files.write(f, ("v1 2024-01-01T00:00:00Z CREATED " + SHA.substring(0, 10) + good + "\0\0\0" + good + "v1 2024")
        .getBytes(StandardCharsets.UTF_8));

    List<Ledger.Line> lines = Ledger.read(new StorePaths(dir, FsOps.real()), f);

    assertEquals(2, lines.size(), lines.toString());
    assertEquals(PutStatus.IDENTICAL, lines.get(0).status());
    assertEquals("w2", lines.get(1).writer());
  }
}
