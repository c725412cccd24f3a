package dev.idem.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Every page walk ends in an error when the server hands out a next position it handed out before. */
class PageCursorGuardTest {
  private final ExecutorService executor = Executors.newSingleThreadExecutor();
  private final List<String> fetched = new ArrayList<>();
  private final List<Integer> pageNumbers = new ArrayList<>();

  @AfterEach
  void stop() {
    executor.shutdownNow();
  }

  /** Pages by position: each maps to its one entry and its next position. */
  private PageCursor<String, String> cursor(Map<String, String> nextOf) throws IOException {
    PageCursor.Fetch<String, String> fetch = (position, page) -> {
      synchronized (fetched) {
        fetched.add(position);
        pageNumbers.add(page);
      }
      return new PageCursor.Page<>(List.of("entry@" + position), nextOf.get(position));
    };
    return PageCursor.open(fetch, "start", executor, "ListObjectsV2 of s3://bkt/p/");
  }

  private static void drain(PageCursor<String, String> c) throws IOException {
    while (c.next() != null) {
      // consume
    }
  }

  @Test
  void next_serverCyclesBackToAnEarlierToken_ioErrorNamingTheListing() throws IOException {
    try (PageCursor<String, String> c = cursor(Map.of("start", "t1", "t1", "t2", "t2", "t1"))) {
      IOException e = assertThrows(IOException.class, () -> drain(c));
      assertEquals("ListObjectsV2 of s3://bkt/p/: the server handed out the same continuation position twice (t1)"
          + " after 2 pages; stopping rather than listing the same pages forever", e.getMessage());
    }
    assertEquals(List.of("start", "t1", "t2"), fetched, "the repeated page is never requested again");
  }

  @Test
  void next_serverRepeatsTheTokenItWasAskedFor_ioError() throws IOException {
    try (PageCursor<String, String> c = cursor(Map.of("start", "t1", "t1", "t1"))) {
      assertThrows(IOException.class, () -> drain(c));
    }
  }

  @Test
  void next_tokensThatAdvance_walkEndsNormally() throws IOException {
    try (PageCursor<String, String> c = cursor(Map.of("start", "t1", "t1", "t2"))) {
      assertEquals("entry@start", c.next());
      assertEquals("entry@t1", c.next());
      assertEquals("entry@t2", c.next());
      assertNull(c.next());
    }
  }

  @Test
  void restart_samePositionTwice_ioErrorNamingTheListing() throws IOException {
    try (PageCursor<String, String> c = cursor(Map.of())) {
      c.restart("after-idem");
      IOException e = assertThrows(IOException.class, () -> c.restart("after-idem"));
      assertEquals("ListObjectsV2 of s3://bkt/p/: restarted twice at the same position (after-idem): the server lists"
          + " keys before the position it is asked to start at; stopping rather than listing the same pages forever",
          e.getMessage());
    }
    assertEquals(List.of("start", "after-idem"), fetched, "the second restart fetches nothing");
  }

  @Test
  void fetch_pageNumbersCountFromTheOpenAndFromEachRestart() throws IOException {
    try (PageCursor<String, String> c = cursor(Map.of("start", "t1", "t1", "t2", "r", "t3"))) {
      drain(c);
      c.restart("r");
      drain(c);
    }
    assertEquals(List.of("start", "t1", "t2", "r", "t3"), fetched);
    assertEquals(List.of(0, 1, 2, 0, 1), pageNumbers, "a count of the cursor's, not part of the position");
  }

  @Test
  void guard_nullMeansComplete_alwaysAccepted() throws IOException {
    ListingGuard<String> g = new ListingGuard<>("listing");
    assertNull(g.next(null));
    assertNull(g.next(null));
    assertEquals("a", g.next("a"));
    assertTrue(assertThrows(IOException.class, () -> g.next("a")).getMessage().startsWith("listing: "));
  }
}
