package dev.idem.core.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.Idem;
import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.publish.PointerAdvancer;
import dev.idem.core.publish.PublishStatus;
import dev.idem.core.publish.Publisher;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.testing.ForwardingObjectStore.Capability;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Retention and the publisher on a store that lacks a capability: gc does what is safe without it and
 * lists what it skipped; the publisher reports a re-publish it cannot recognise as CREATED.
 */
class RetentionWithoutCapabilitiesTest {
  private static final long DAY = 86_400;
  private final Instant now = Instant.ofEpochSecond(100 * DAY);
  private final Clock clock = Clock.fixed(now, ZoneOffset.UTC);
  private final InMemoryObjectStore memory = new InMemoryObjectStore(Clock.fixed(now.minus(Duration.ofHours(2)), ZoneOffset.UTC));
  private final List<String> sweeps = new ArrayList<>();
  /** The memory store with a sweep that is seen to run. */
  private final ForwardingObjectStore all = new ForwardingObjectStore(memory) {
    @Override
    public List<String> sweep(Duration grace, boolean dryRun) {
      sweeps.add("swept");
      return List.of("removed x");
    }
  };

  private static RunSpec spec(long day) {
    return RunSpec.of("daily", new Window(day * DAY, DAY), 1);
  }

  private void publish(ObjectStore store, long day, String text) throws IOException {
    Publisher p = Idem.publisher(store).writer("w").clock(clock).pointer(new PointerAdvancer(store)).build();
    p.publish(spec(day), Payload.ofBytes(text.getBytes(StandardCharsets.UTF_8)));
  }

  private Retention.Report gc(ObjectStore store) throws IOException {
    return new Retention(store, clock, "idem test").run("daily", new Retention.Policy(1, null, Duration.ofMinutes(10), false));
  }

  private List<String> historyKeys() throws IOException {
    List<String> out = new ArrayList<>();
    memory.history("", h -> out.add(h.key()));
    return out;
  }

  @Test
  void run_everyCapability_skipsNothing() throws IOException {
    for (long d = 90; d < 93; d++) {
      publish(all, d, "day " + d);
    }
    Retention.Report r = gc(all);
    assertEquals(List.of(), r.skipped());
    assertEquals(List.of("removed x"), r.swept());
    assertEquals(91 * DAY, r.retirement().windowStart());
  }

  @Test
  void run_noRetirementMarks_deletesRaisesNoneAndSaysSo() throws IOException {
    ObjectStore store = ForwardingObjectStore.without(all, Capability.RETIREMENT_MARKS);
    for (long d = 90; d < 93; d++) {
      publish(store, d, "day " + d);
    }
    Retention.Report r = gc(store);

    assertEquals(List.of(spec(90).outputKey().toString(), spec(91).outputKey().toString()), r.deleted());
    assertNull(r.retirement());
    assertTrue(memory.readRetirement("daily").isEmpty(), "no mark written behind the store's back");
    assertEquals(List.of("memory: keeps no retirement marks: none raised; a removed window published again is "
        + "reported CREATED, not REPUBLISHED"), r.skipped());
  }

  @Test
  void run_noPublishHistory_deletesObjectsLeavesRecordsAndSaysSo() throws IOException {
    ObjectStore store = ForwardingObjectStore.without(all, Capability.HISTORY);
    publish(store, 90, "day 90");
    publish(store, 91, "day 91");
    String old = spec(90).outputKey().toString();
    memory.putIfAbsent(old, Payload.ofBytes("other bytes".getBytes(StandardCharsets.UTF_8)), "w2");

    Retention.Report r = gc(store);

    assertEquals(List.of(old), r.deleted());
    assertEquals(0, r.records());
    assertEquals(List.of(), r.evidenceKept(), "nothing to judge a divergence by");
    assertEquals(List.of(old, spec(91).outputKey().toString()), historyKeys(), "records untouched");
    assertEquals(List.of("memory: keeps no publish history: no records removed, no divergence evidence to keep"),
        r.skipped());
  }

  @Test
  void run_noSweep_sweepsNothingAndSaysSo() throws IOException {
    ObjectStore store = ForwardingObjectStore.without(all, Capability.SWEEP);
    publish(store, 90, "day 90");

    Retention.Report r = gc(store);

    assertEquals(List.of(), r.swept());
    assertEquals(List.of(), sweeps, "the hidden sweep never ran");
    assertEquals(List.of("memory: has no sweep of leftovers: nothing swept"), r.skipped());
  }

  @Test
  void publish_afterGcOnAStoreWithoutRetirementMarks_created() throws IOException {
    for (long d = 90; d < 93; d++) {
      publish(all, d, "day " + d);
    }
    gc(all); // a mark now covers day 90, but a store without marks cannot show it
    ObjectStore store = ForwardingObjectStore.without(all, Capability.RETIREMENT_MARKS);
    Publisher p = Idem.publisher(store).writer("w").clock(clock).pointer(new PointerAdvancer(store)).build();
    assertEquals(PublishStatus.CREATED, p.publish(spec(90), Payload.ofBytes("day 90 again".getBytes(StandardCharsets.UTF_8)))
        .status());

    Publisher withMarks = Idem.publisher(all).writer("w").clock(clock).pointer(new PointerAdvancer(all)).build();
    assertEquals(PublishStatus.REPUBLISHED, withMarks.publish(spec(91),
        Payload.ofBytes("day 91 again".getBytes(StandardCharsets.UTF_8))).status(), "the same store with its marks");
  }
}
