package dev.idem.store.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.Sha256;
import dev.idem.core.store.PutStatus;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The line format of the records' content and its tolerant reader. */
class RecordLineTest {
  private static final String SHA = Sha256.EMPTY;

  @Test
  void format_withAndWithoutSchema_v2LinesThatParseBack() {
    RecordLine a = new RecordLine(Instant.parse("2024-09-10T20:27:00Z"), PutStatus.CREATED, SHA, 5, "hostv2", 3);
    RecordLine b = new RecordLine(Instant.parse("2024-09-10T20:27:00Z"), PutStatus.IDENTICAL, SHA, 5, "v1", null);
    assertEquals("v2 2024-09-10T20:27:00Z CREATED " + SHA + " 5 3 hostv2\n", a.format());
    assertEquals("v2 2024-09-10T20:27:00Z IDENTICAL " + SHA + " 5 - v1\n", b.format());
    assertEquals(a, RecordLine.parse(a.format().strip()).orElseThrow());
    assertEquals(b, RecordLine.parse(b.format().strip()).orElseThrow(), "a writer named like a tag is still the writer");
  }

  @Test
  void format_divergentNamingTheObjectItMet_v3LineThatParsesBack() {
    String met = "ab".repeat(32);
    RecordLine d = new RecordLine(Instant.parse("2024-09-10T20:27:00Z"), PutStatus.DIVERGENT, SHA, 5, "v3", 3, met);
    assertEquals("v3 2024-09-10T20:27:00Z DIVERGENT " + SHA + " 5 3 " + met + " v3\n", d.format());
    assertEquals(d, RecordLine.parse(d.format().strip()).orElseThrow());
    for (String bad : List.of("v3 2024-01-01T00:00:00Z CREATED " + SHA + " 1 - " + met + " w",
        "v3 2024-01-01T00:00:00Z DIVERGENT " + SHA + " 1 - abc w", "v3 2024-01-01T00:00:00Z DIVERGENT " + SHA + " 1 - w")) {
      assertTrue(RecordLine.parse(bad).isEmpty(), bad);
    }
    assertThrows(IllegalArgumentException.class,
        () -> new RecordLine(Instant.EPOCH, PutStatus.IDENTICAL, SHA, 5, "w", null, met));
  }

  @Test
  void parse_emptyPayloadOfSchemaZero_read() {
    RecordLine empty = new RecordLine(Instant.parse("2024-09-10T20:27:00Z"), PutStatus.CREATED, SHA, 0, "w", 0);
    assertEquals(empty, RecordLine.parse(empty.format().strip()).orElseThrow());
  }

  @Test
  void parse_malformedLines_skipped() {
    String t = " 2024-01-01T00:00:00Z ";
    for (String bad : List.of("", "v1", "v2", "v2" + t + "CREATED " + SHA + " 1 w",
        "v2 yesterday CREATED " + SHA + " 1 - w", "v2" + t + "MAYBE " + SHA + " 1 - w",
        "v2" + t + "CREATED abc 1 - w", "v2" + t + "CREATED " + SHA + " -1 - w",
        "v2" + t + "CREATED " + SHA + " 1 -", "v2" + t + "CREATED " + SHA + " 1 - w extra",
        "v2" + t + "CREATED " + SHA + " 1 - -bad", "v2" + t + "CREATED " + SHA + " 1 x w",
        "v2" + t + "CREATED " + SHA + " 1 -3 w", "v2" + t + "CREATED " + SHA + " 1 3 w x",
        "v1" + t + "CREATED " + SHA + " 1 w", "torn v2" + t + "CREATED " + SHA + " 1 - w")) {
      assertTrue(RecordLine.parse(bad).isEmpty(), bad);
    }
  }
}
