package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine.TypeConversionException;

/** Durations, times and store URIs: what users type. */
class ParsingTest {

  @Nested
  class DurationsParse {
    @Test
    void parse_units() {
      assertEquals(Duration.ofSeconds(60), Durations.parse("60s"));
      assertEquals(Duration.ofMinutes(5), Durations.parse("5m"));
      assertEquals(Duration.ofMinutes(90), Durations.parse("1h30m"));
      assertEquals(Duration.ofDays(7), Durations.parse("7d"));
      assertEquals(Duration.ofHours(1), Durations.parse("PT1H"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "60", "5x", "-5s", "1.5h", "s", "PT-1H", "1h 30m"})
    void parse_rejectsWithOneLine(String bad) {
      TypeConversionException e = assertThrows(TypeConversionException.class, () -> Durations.parse(bad));
      assertTrue(!e.getMessage().contains("\n"), e.getMessage());
    }

    @Test
    void format_roundTrips() {
      assertEquals("1h30m", Durations.format(Duration.ofMinutes(90)));
      assertEquals("1d1s", Durations.format(Duration.ofSeconds(86401)));
    }
  }

  @Nested
  class InstantsParse {
    @Test
    void parse_forms() {
      Instant t = Instant.parse("2024-09-10T20:26:40Z");
      assertEquals(t, Instants.parse("2024-09-10T20:26:40Z"));
      assertEquals(t, Instants.parse("2024-09-10T22:26:40+02:00"));
      assertEquals(t, Instants.parse("1726000000"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "2024-09-10T20:26:40", "yesterday", "-5"})
    void parse_rejectsAmbiguousOrBad(String bad) {
      assertThrows(TypeConversionException.class, () -> Instants.parse(bad));
    }
  }

  @Nested
  class StoreUrisParse {
    @Test
    void choose_flagThenEnvThenDefault() {
      assertEquals("file:x", StoreUris.choose("file:x", Map.of("IDEM_STORE", "file:y")));
      assertEquals("file:y", StoreUris.choose(null, Map.of("IDEM_STORE", "file:y")));
      assertEquals("file:.idem", StoreUris.choose(null, Map.of()));
      assertEquals("file:.idem", StoreUris.choose("", Map.of("IDEM_STORE", "")));
    }

    @Test
    void parse_fileForms() {
      assertEquals(new StoreUris.FileUri(Path.of("rel/dir")), StoreUris.parse("file:rel/dir"));
      assertEquals(new StoreUris.FileUri(Path.of("/abs")), StoreUris.parse("file:/abs"));
      assertEquals(new StoreUris.FileUri(Path.of("/abs")), StoreUris.parse("file:///abs"));
    }

    @Test
    void parse_s3Forms() {
      StoreUris.StoreUri u = StoreUris.parse("s3://my-bucket/exports/daily?region=eu-west-1");
      assertEquals("s3://my-bucket/exports/daily?region=eu-west-1", assertInstanceOf(StoreUris.S3Uri.class, u).uri());
      assertInstanceOf(StoreUris.S3Uri.class, StoreUris.parse("s3://my-bucket"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "foo", "/tmp/x", "http://x", "file:", "file://host/x", "s3://", "s3:///x",
        "s3://b/x", "s3://bucket/a/../b", "s3://bucket/x?color=red", "s3://bucket?region=EU!", "gs://bucket/x"})
    void parse_rejectsWithUsageException(String bad) {
      UsageException e = assertThrows(UsageException.class, () -> StoreUris.parse(bad));
      assertTrue(e.getMessage().contains("expected file:PATH or s3://bucket/prefix"), e.getMessage());
      assertTrue(!e.getMessage().contains("\n"), e.getMessage());
    }
  }
}
