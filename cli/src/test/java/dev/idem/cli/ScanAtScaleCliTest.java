package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** idem scan against slow and large stores: the time bound, and what a long scan says while it runs. */
class ScanAtScaleCliTest {
  private static final Instant START = Instant.parse("2024-09-10T20:27:30Z");

  /** A clock the test moves; only the slow store below advances it. */
  static final class ManualClock extends Clock {
    Instant now = START;

    @Override public ZoneId getZone() { return ZoneOffset.UTC; }
    @Override public Clock withZone(ZoneId zone) { return this; }
    @Override public Instant instant() { return now; }
  }

  /**
   * A store whose listing answers {@code pageSize} keys per request and whose every request takes {@code
   * latency} on {@code clock} (charged when the page's first key is listed): S3 at a fixed latency,
   * without sleeping.
   */
  static ObjectStore slow(ObjectStore backing, ManualClock clock, int pageSize, Duration latency, int[] requests) {
    return new ForwardingObjectStore(backing) {
      @Override
      public boolean history(String prefix, HistoryVisitor visitor) throws IOException {
        int[] listed = {0};
        return super.history(prefix, h -> {
          if (listed[0]++ % pageSize == 0) {
            requests[0]++;
            clock.now = clock.now.plus(latency);
          }
          return visitor.visit(h);
        });
      }
    };
  }

  static InMemoryObjectStore keys(int count) throws IOException {
    InMemoryObjectStore store = new InMemoryObjectStore();
    for (int i = 0; i < count; i++) {
      store.putIfAbsent(RunSpec.of("p", new Window(1725000000L + 60L * i, 60), 1).outputKey().toString(),
          Payload.ofBytes(new byte[] {1}), "w");
    }
    return store;
  }

  @Test
  void scan_maxTime2sOnASlowStore_returnsWithin2sPlusOneRequestIncomplete() throws IOException {
    ManualClock clock = new ManualClock();
    int[] requests = {0};
    ObjectStore slow = slow(keys(500), clock, 10, Duration.ofMillis(300), requests);
    Cli.Result r = new Cli().clock(clock).opener(uri -> slow)
        .run("scan", "--store", "mem:", "--pipeline", "p", "--max-time", "2s", "--json");
    Duration took = Duration.between(START, clock.now);
    assertEquals(ExitCodes.DIVERGENT, r.code(), "cut short, so never clean: " + r.describe());
    assertTrue(took.compareTo(Duration.ofSeconds(2)) >= 0 && took.compareTo(Duration.ofMillis(2300)) <= 0,
        "2 s plus at most one 300 ms request, took " + took + " in " + requests[0] + " requests");
    Map<String, Object> summary = MiniJson.object(r.outLines()[r.outLines().length - 1]);
    assertEquals(false, summary.get("complete"), r.describe());
    assertEquals(false, summary.get("clean"), r.describe());
    assertTrue((Long) summary.get("keys") < 500, r.describe());
  }

  @Test
  void scan_sinceOnASlowStore_deadlineHoldsWhileSkippingOldWindows() throws IOException {
    // Every key is older than --since: none is judged, yet the listing is still bounded by --max-time,
    // and a scan cut short is incomplete (exit 1), not empty (exit 9, which --allow-empty passes).
    ManualClock clock = new ManualClock();
    int[] requests = {0};
    ObjectStore slow = slow(keys(500), clock, 10, Duration.ofMillis(300), requests);
    Cli.Result r = new Cli().clock(clock).opener(uri -> slow)
        .run("scan", "--store", "mem:", "--pipeline", "p", "--since", "1h", "--max-time", "2s");
    assertEquals(ExitCodes.DIVERGENT, r.code(), r.describe());
    assertTrue(r.err().contains("stopped early"), r.describe());
    assertFalse(Duration.between(START, clock.now).compareTo(Duration.ofMillis(2300)) > 0,
        "took " + Duration.between(START, clock.now));
    // Cut short before meeting a key is not "examined nothing": --allow-empty must not pass it.
    clock.now = START;
    Cli.Result allowEmpty = new Cli().clock(clock).opener(uri -> slow)
        .run("scan", "--store", "mem:", "--pipeline", "p", "--since", "1h", "--max-time", "2s", "--allow-empty");
    assertEquals(ExitCodes.DIVERGENT, allowEmpty.code(), allowEmpty.describe());
  }

  @Test
  void scan_listParallelismOutOfRange_usageErrorOneLine() throws IOException {
    InMemoryObjectStore store = keys(1);
    for (String n : new String[] {"0", "65"}) {
      Cli.Result r = new Cli().opener(uri -> store).run("scan", "--store", "mem:", "--list-parallelism", n);
      assertEquals(ExitCodes.USAGE, r.code(), r.describe());
      assertEquals("idem scan: --list-parallelism must be 1-64, was " + n, r.err().strip(), r.describe());
    }
  }

  @Test
  void scan_progressEveryZero_usageErrorOneLine() throws IOException {
    InMemoryObjectStore store = keys(1);
    Cli.Result r = new Cli().opener(uri -> store).run("scan", "--store", "mem:", "--progress-every", "0s");
    assertEquals(ExitCodes.USAGE, r.code(), r.describe());
    assertEquals("idem scan: --progress-every must be positive", r.err().strip(), r.describe());
  }
}
