package dev.idem.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class HistoryQueryTest {
  private static final Clock SEP_2024 = Clock.fixed(Instant.parse("2024-09-10T20:27:30Z"), ZoneOffset.UTC);

  private static String key(String pipeline, long windowStart) {
    return RunSpec.of(pipeline, new Window(windowStart, 60), 1).outputKey().toString();
  }

  private static HistoryQuery windows(long min) {
    return HistoryQuery.windows("p", min).until(SEP_2024, null);
  }

  @Test
  void accepts_windowQuery_onlyThePipelinesIdemKeysInRange() {
    HistoryQuery q = windows(1725999960);
    assertTrue(q.accepts(key("p", 1725999960)));
    assertTrue(q.accepts(key("p", 17259999600L)));
    assertFalse(q.accepts(key("p", 1725999900)));
    assertFalse(q.accepts(key("q", 1725999960)));
    assertFalse(q.accepts("p/1725999960/legacy.csv"));
  }

  @Test
  void accepts_prefixQuery_everyKeyUnderThePrefix() {
    HistoryQuery q = HistoryQuery.under("exports/");
    assertTrue(q.accepts("exports/job-1/w.csv"));
    assertFalse(q.accepts("export/job-1/w.csv"));
  }

  @Test
  void withoutSchemaReads_theSameQueryReadingNoSchemas() {
    HistoryQuery q = windows(1725999960).withListParallelism(3);
    assertTrue(q.readsSchemas(), "read by default");
    assertEquals(new HistoryQuery("p/", "p", 1725999960, SEP_2024, null, 3, false), q.withoutSchemaReads());
  }

  @Test
  void mayHoldKeysUnder_windowDirectories_onlyDecimalStartsInRange() {
    HistoryQuery q = windows(1725999960);
    assertTrue(q.mayHoldKeysUnder("p/"));
    assertTrue(q.mayHoldKeysUnder("p/1725999960/"));
    assertTrue(q.mayHoldKeysUnder("p/17259999600/"));
    assertFalse(q.mayHoldKeysUnder("p/1725999900/"));
    assertFalse(q.mayHoldKeysUnder("p/01725999960/"));
    assertFalse(q.mayHoldKeysUnder("p/legacy/"));
    assertFalse(q.mayHoldKeysUnder("p/1725999960/deeper/"));
    assertFalse(q.mayHoldKeysUnder("p//"));
    assertFalse(q.mayHoldKeysUnder("p/99999999999999999999/"), "beyond a long: no idem key");
    assertTrue(HistoryQuery.under("p/").mayHoldKeysUnder("p/legacy/"));
  }

  @Test
  void listFrom_minWithNowsDigits_startsAtTheFirstWindowInRange() {
    assertEquals("p/1725999960", windows(1725999960).listFrom());
  }

  @Test
  void listFrom_minWithFewerDigitsThanNow_listsTheWholePipeline() {
    // 999999999 (2001) to 1000000000 sorts "1000000000" < "999999999": no start marker is safe.
    assertNull(windows(999_999_999).listFrom());
    assertNull(windows(0).listFrom());
    assertNull(HistoryQuery.under("p/").listFrom());
  }

  @Test
  void expired_atAndAfterTheDeadline() {
    Instant t = SEP_2024.instant();
    assertFalse(HistoryQuery.under("").until(SEP_2024, t.plusMillis(1)).expired());
    assertTrue(HistoryQuery.under("").until(SEP_2024, t).expired());
    assertFalse(HistoryQuery.under("").expired(), "no deadline");
  }

  @Test
  void constructor_badArguments_refusedWithTheirValue() {
    assertEquals("a window query lists its pipeline's keys: prefix must be 'p/', was 'q/'",
        assertThrows(IllegalArgumentException.class,
            () -> new HistoryQuery("q/", "p", 0, SEP_2024, null, 1, true)).getMessage());
    assertEquals("list parallelism must be 1-64, was 0", assertThrows(IllegalArgumentException.class,
        () -> HistoryQuery.under("").withListParallelism(0)).getMessage());
    assertEquals("list parallelism must be 1-64, was 65", assertThrows(IllegalArgumentException.class,
        () -> HistoryQuery.under("").withListParallelism(65)).getMessage());
    assertThrows(IllegalArgumentException.class, () -> HistoryQuery.windows("p", -1));
  }
}
