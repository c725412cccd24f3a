package dev.idem.core.retention;

import dev.idem.core.Idem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.publish.PointerAdvancer;
import dev.idem.core.publish.PublishReport;
import dev.idem.core.publish.PublishStatus;
import dev.idem.core.publish.Publisher;
import dev.idem.core.scan.DivergenceScan;
import dev.idem.core.scan.KeyVerdict;
import dev.idem.core.scan.ScanSummary;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Retirement;
import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Retirement: gc leaves a retirement mark, and a window published again after gc removed it is
 * REPUBLISHED for the publisher and republished (not divergent) for the scan.
 */
class RetirementTest {
  private static final long DAY = 86_400;
  private final Instant now = Instant.ofEpochSecond(100 * DAY);
  private final MovableClock storeClock = new MovableClock(now.minus(Duration.ofHours(2)));
  private final InMemoryObjectStore memory = new InMemoryObjectStore(storeClock);
  private final AtomicInteger retirementReads = new AtomicInteger();
  private final List<String> deletes = new ArrayList<>();
  private final ForwardingObjectStore store = new ForwardingObjectStore(memory) {
    @Override
    public Optional<Retirement> readRetirement(String pipeline) throws IOException {
      retirementReads.incrementAndGet();
      return super.readRetirement(pipeline);
    }

    @Override
    public boolean delete(String key) throws IOException {
      deletes.add(key + (memory.readRetirement("daily").isPresent() ? " (mark present)" : " (no mark)"));
      return super.delete(key);
    }
  };
  private final Clock gcClock = Clock.fixed(now, ZoneOffset.UTC);

  static final class MovableClock extends Clock {
    final AtomicReference<Instant> at;

    MovableClock(Instant start) {
      at = new AtomicReference<>(start);
    }

    @Override public ZoneId getZone() { return ZoneOffset.UTC; }
    @Override public Clock withZone(ZoneId zone) { return this; }
    @Override public Instant instant() { return at.get(); }
  }

  private static RunSpec spec(long day) {
    return RunSpec.of("daily", new Window(day * DAY, DAY), 1);
  }

  private Publisher publisher() {
    return Idem.publisher(store).writer("w").clock(gcClock).pointer(new PointerAdvancer(store)).build();
  }

  private static Payload text(String s) {
    return Payload.ofBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  private Retention.Report gc(boolean dryRun) throws IOException {
    return new Retention(store, gcClock, "idem test").run("daily",
        new Retention.Policy(1, null, Duration.ofMinutes(10), dryRun));
  }

  @Test
  void document_roundTripsAndIsParsedStrictly() throws IOException {
    Retirement r = new Retirement("daily", 90 * DAY, now, "idem 1.4.0");
    assertEquals(r, Retirement.parse(r.toBytes(), "t", "daily"));
    assertEquals("idem-retired 1\npipeline=daily\nwindow_start=7776000\nretired_at=1970-04-11T00:00:00Z\n"
        + "retired_by=idem 1.4.0\n", new String(r.toBytes(), StandardCharsets.UTF_8));
    assertThrows(Retirement.MalformedRetirementException.class, () -> Retirement.parse(r.toBytes(), "t", "other"));
    assertThrows(Retirement.MalformedRetirementException.class,
        () -> Retirement.parse("idem-retired 1\npipeline=daily\n".getBytes(StandardCharsets.UTF_8), "t"));
    assertThrows(Retirement.MalformedRetirementException.class,
        () -> Retirement.parse(new String(r.toBytes(), StandardCharsets.UTF_8).replace("\n", "\nx=1\n")
            .getBytes(StandardCharsets.UTF_8), "t"));
    assertThrows(IllegalArgumentException.class, () -> new Retirement("daily", 0, now, "two\nlines"));
    assertTrue(r.covers(90 * DAY));
    assertTrue(!r.covers(91 * DAY));
  }

  @Test
  void gc_raisesTheMarkToTheNewestRemovedWindow_beforeItDeletes() throws Exception {
    for (long d = 90; d < 94; d++) {
      publisher().publish(spec(d), text("day " + d));
    }
    Retention.Report r = gc(false);

    assertEquals(3, r.deleted().size());
    Retirement mark = memory.readRetirement("daily").orElseThrow();
    assertEquals(92 * DAY, mark.windowStart());
    assertEquals(now, mark.retiredAt());
    assertEquals("idem test", mark.retiredBy());
    assertEquals(mark, r.retirement());
    assertTrue(deletes.stream().allMatch(d -> d.endsWith("(mark present)")), deletes.toString());
  }

  @Test
  void gc_dryRun_writesNoMark() throws Exception {
    for (long d = 90; d < 93; d++) {
      publisher().publish(spec(d), text("day " + d));
    }
    Retention.Report r = gc(true);
    assertEquals(91 * DAY, r.retirement().windowStart(), "the mark it would write");
    assertTrue(memory.readRetirement("daily").isEmpty());
  }

  @Test
  void gc_nothingRemoved_markUntouched() throws Exception {
    publisher().publish(spec(90), text("day 90"));
    assertNull(gc(false).retirement());
    assertTrue(memory.readRetirement("daily").isEmpty());
  }

  @Test
  void raise_neverMovesTheMarkBack() throws IOException {
    memory.raiseRetirement(new Retirement("daily", 92 * DAY, now, "run b"));
    Retirement kept = memory.raiseRetirement(new Retirement("daily", 91 * DAY, now.plusSeconds(1), "run a"));
    assertEquals(92 * DAY, kept.windowStart());
    assertEquals("run b", memory.readRetirement("daily").orElseThrow().retiredBy());
  }

  @Test
  void publishAfterGc_republishedWithOtherBytes_andTheScanSaysSoWithoutFailing() throws Exception {
    for (long d = 90; d < 93; d++) {
      publisher().publish(spec(d), text("day " + d));
    }
    gc(false);
    storeClock.at.set(now.plusSeconds(60)); // after the gc run
    retirementReads.set(0);

    Publisher late = publisher();
    PublishReport again = late.publish(spec(90), text("day 90, rebuilt with other bytes"));

    assertEquals(PublishStatus.REPUBLISHED, again.status());
    assertEquals(91 * DAY, again.retired().windowStart());
    assertEquals(now, again.retired().retiredAt());
    assertEquals(PublishStatus.CREATED, late.publish(spec(93), text("day 93")).status(), "outside the retired range");
    assertEquals(PublishStatus.IDENTICAL, late.publish(spec(93), text("day 93")).status());
    assertEquals(1, retirementReads.get(), "the mark is read once per pipeline, and only after a CREATED");

    List<KeyVerdict> republished = new ArrayList<>();
    ScanSummary s = new DivergenceScan().run(store, "daily/", new DivergenceScan.Listener() {
      @Override
      public void divergent(KeyVerdict v) {
        throw new AssertionError("republished key called divergent: " + v);
      }

      @Override
      public void republished(KeyVerdict v) {
        republished.add(v);
      }
    });
    assertEquals(List.of(spec(90).outputKey().toString()), republished.stream().map(KeyVerdict::key).toList());
    assertEquals(1, s.republishedKeys());
    assertTrue(s.clean(), s.toString());
  }

  @Test
  void publish_newWindowAdvancingANeverRewoundPointer_neverReadsTheMark() throws Exception {
    for (long d = 90; d < 93; d++) {
      publisher().publish(spec(d), text("day " + d));
    }
    gc(false);
    retirementReads.set(0);
    PublishReport next = publisher().publish(spec(93), text("day 93"));
    assertEquals(PublishStatus.CREATED, next.status());
    assertEquals(0, retirementReads.get(), "gc deletes only behind the pointer: the steady state costs nothing");
  }

  @Test
  void publish_pointerOffOrRewound_readsTheMark() throws Exception {
    for (long d = 90; d < 94; d++) {
      publisher().publish(spec(d), text("day " + d));
    }
    gc(false); // retires up to day 92
    storeClock.at.set(now.plusSeconds(60));
    Publisher noPointer = Idem.publisher(store).writer("w").clock(gcClock).withoutPointer().build();
    assertEquals(PublishStatus.REPUBLISHED, noPointer.publish(spec(91), text("day 91 again")).status());

    // An operator sends the pointer back to day 91; a later publish of day 92 advances it, yet gc
    // retired day 92 while the pointer stood at day 93.
    dev.idem.core.store.Pointer to91 = dev.idem.core.store.Pointer.to(memory.stat(spec(91).outputKey().toString())
        .orElseThrow(), DAY, 1, "op", now);
    new dev.idem.core.publish.PointerRewinder(store, new dev.idem.core.publish.ClosedWindowGuard(gcClock,
        Duration.ofMinutes(5))).rewind(to91, spec(93).outputKey().toString(), "op", "incident 7");
    PublishReport again = publisher().publish(spec(92), text("day 92 again"));
    assertEquals(dev.idem.core.publish.AdvanceStatus.ADVANCED, again.pointer().status());
    assertEquals(PublishStatus.REPUBLISHED, again.status(), "a rewound pointer does not prove the window new");
  }

  @Test
  void publish_skippedOrIdentical_neverReadsTheMark() throws Exception {
    publisher().publish(spec(90), text("day 90"));
    retirementReads.set(0);
    Publisher p = publisher();
    assertEquals(PublishStatus.SKIPPED, p.publish(spec(90), (sp, k) -> text("day 90")).status());
    assertEquals(PublishStatus.IDENTICAL, p.publish(spec(90), text("day 90")).status());
    assertEquals(0, retirementReads.get());
  }
}
