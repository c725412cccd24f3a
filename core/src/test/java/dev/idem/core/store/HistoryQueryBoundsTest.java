package dev.idem.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The exact limits of a {@link HistoryQuery}: list parallelism 1 to {@link
 * HistoryQuery#MAX_LIST_PARALLELISM}, and which directories a window query may skip (a window directory
 * is 1 to 19 digits without a leading zero, except "0" itself).
 */
class HistoryQueryBoundsTest {
  @Test
  void listParallelism_oneToTheMaximum() {
    HistoryQuery q = HistoryQuery.under("p/");
    assertEquals(1, q.withListParallelism(1).listParallelism());
    assertEquals(HistoryQuery.MAX_LIST_PARALLELISM, q.withListParallelism(HistoryQuery.MAX_LIST_PARALLELISM).listParallelism());
    assertThrows(IllegalArgumentException.class, () -> q.withListParallelism(0));
    assertThrows(IllegalArgumentException.class, () -> q.withListParallelism(HistoryQuery.MAX_LIST_PARALLELISM + 1));
  }

  @Test
  void mayHoldKeysUnder_windowDirectoryShapes() {
    HistoryQuery q = HistoryQuery.windows("p", 0);
    assertTrue(q.mayHoldKeysUnder("p/"), "the pipeline's own directory");
    assertTrue(q.mayHoldKeysUnder("p/0/"), "window 0");
    assertFalse(q.mayHoldKeysUnder("p/01/"), "a leading zero is no window");
    assertTrue(q.mayHoldKeysUnder("p/1234567890123456789/"), "19 digits");
    assertFalse(q.mayHoldKeysUnder("p/12345678901234567890/"), "20 digits is past a long");
  }
}
