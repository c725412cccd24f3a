package dev.idem.core.scan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.publish.ClosedWindowGuard;
import dev.idem.core.publish.PointerAdvancer;
import dev.idem.core.publish.PointerRewinder;
import dev.idem.core.publish.RewindStatus;
import dev.idem.core.store.HistoryEntry;
import dev.idem.core.store.KeyHistory;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The newest generation of one schema: what a reader of that format follows while a deploy moves the
 * pointer between schemas ({@code (window_start, schema_version)} order).
 */
class LatestOfSchemaTest {
  private static final long N = 1_726_000_020L;
  private final InMemoryObjectStore mem = new InMemoryObjectStore();

  private static String key(long window, int schema) {
    return RunSpec.of("orders", new Window(window, 60), schema).outputKey().toString();
  }

  /** Publishes the generation of {@code (window, schema)} and advances the pointer to it, as a publish does. */
  private void publish(ObjectStore store, long window, int schema) throws IOException {
    String k = key(window, schema);
    store.putIfAbsent(k, Payload.ofBytes(k.getBytes(StandardCharsets.UTF_8)).withSchema(schema), "w");
    new PointerAdvancer(store).advance(Pointer.to(store.stat(k).orElseThrow(), 60, schema, "w", Instant.EPOCH));
  }

  private static String pointerKey(ObjectStore store) throws IOException {
    return store.readPointer("orders").orElseThrow().pointer().key();
  }

  @Test
  void find_deployOverlap_eachSchemaItsNewestWhileThePointerFlips() throws IOException {
    publish(mem, N, 3);
    publish(mem, N, 4);
    assertEquals(key(N, 4), pointerKey(mem));
    publish(mem, N + 60, 3); // the old build's next window: a later position, so the pointer moves to schema 3
    assertEquals(key(N + 60, 3), pointerKey(mem));

    assertEquals(Optional.of(key(N, 4)), LatestOfSchema.find(mem, "orders", 4, 0));
    assertEquals(Optional.of(key(N + 60, 3)), LatestOfSchema.find(mem, "orders", 3, 0));
    assertEquals(Optional.empty(), LatestOfSchema.find(mem, "orders", 5, 0));
    assertEquals(Optional.empty(), LatestOfSchema.find(mem, "orders", 3, N + 120), "nothing in range");
  }

  @Test
  void find_generationAheadOfARewoundPointer_neverHandedOut() throws IOException {
    publish(mem, N, 4);
    publish(mem, N + 60, 4);
    Pointer back = Pointer.to(mem.stat(key(N, 4)).orElseThrow(), 60, 4, "ops", Instant.EPOCH);
    assertEquals(RewindStatus.REWOUND,
        new PointerRewinder(mem, ClosedWindowGuard.systemDefault()).rewind(back, key(N + 60, 4), "ops", "bad rows").status());

    assertEquals(Optional.of(key(N, 4)), LatestOfSchema.find(mem, "orders", 4, 0));
  }

  @Test
  void find_noPointerOrDeletedGeneration_passedOver() throws IOException {
    assertEquals(Optional.empty(), LatestOfSchema.find(mem, "orders", 3, 0));
    publish(mem, N, 3);
    publish(mem, N + 60, 3);
    mem.delete(key(N + 60, 3));
    assertEquals(Optional.of(key(N, 3)), LatestOfSchema.find(mem, "orders", 3, 0));
  }

  @Test
  void find_schemaNotInTheHistory_askedNewestFirstOnlyAfterTheLastKnown() throws IOException {
    // As on S3, where the listing of a window of one key does not carry its schema.
    AtomicInteger asked = new AtomicInteger();
    ObjectStore s3Like = new ForwardingObjectStore(mem) {
      @Override
      public boolean history(dev.idem.core.store.HistoryQuery query, HistoryVisitor visitor) throws IOException {
        List<KeyHistory> all = new ArrayList<>();
        super.history(query, all::add);
        for (KeyHistory h : all) {
          boolean alone = all.stream().filter(o -> window(o).equals(window(h))).count() == 1;
          List<HistoryEntry> entries = new ArrayList<>();
          for (HistoryEntry e : h.entries()) {
            entries.add(alone ? new HistoryEntry(e.key(), e.kind(), e.versionId(), e.time(), e.size(), e.sha256(),
                e.etag(), e.writer(), null, e.metSha256()) : e);
          }
          if (!visitor.visit(new KeyHistory(h.key(), entries))) {
            return false;
          }
        }
        return true;
      }

      @Override
      public Optional<Integer> schemaOf(String key) throws IOException {
        asked.incrementAndGet();
        return super.schemaOf(key);
      }
    };
    publish(s3Like, N, 3);
    publish(s3Like, N + 60, 3);
    publish(s3Like, N + 60, 4); // the overlap window: two keys, schemas known
    for (int i = 2; i < 6; i++) {
      publish(s3Like, N + 60L * i, 4);
    }

    assertEquals(Optional.of(key(N + 300, 4)), LatestOfSchema.find(s3Like, "orders", 4, 0));
    assertEquals(1, asked.get(), "the newest key is of the schema: one question");
    asked.set(0);
    assertEquals(Optional.of(key(N + 60, 3)), LatestOfSchema.find(s3Like, "orders", 3, 0));
    assertTrue(asked.get() <= 4, "only the keys after the last known schema-3 key are asked about: " + asked.get());
  }

  private static String window(KeyHistory h) {
    return h.key().substring(0, h.key().lastIndexOf('/'));
  }
}
