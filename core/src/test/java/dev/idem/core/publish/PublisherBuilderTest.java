package dev.idem.core.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.Idem;
import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.Payload;
import dev.idem.core.testing.InMemoryObjectStore;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code Idem.publisher(store)}: the one way to configure a {@link Publisher}, whose defaults advance the
 * pointer and refuse empty results, and whose every option is a named step, never a bare flag.
 */
class PublisherBuilderTest {
  private final InMemoryObjectStore store = new InMemoryObjectStore();
  private final RunSpec spec = RunSpec.of("border-state", new Window(60, 60), 1);

  @Test
  void build_withoutWriter_refusedNamingTheStep() {
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> Idem.publisher(store).build());
    assertTrue(e.getMessage().contains("writer(id)"), e.getMessage());
  }

  @Test
  void build_defaults_advanceThePointerAndRefuseEmptyResults() throws Exception {
    Publisher p = Idem.publisher(store).writer("host-a").build();

    PublishReport r = p.publish(spec, Payload.ofBytes(new byte[] {1}));

    assertEquals(PublishStatus.CREATED, r.status());
    assertEquals(AdvanceStatus.ADVANCED, r.pointer().status());
    assertEquals("host-a", r.stored().writer());
    assertThrows(IllegalArgumentException.class,
        () -> p.publish(RunSpec.of("border-state", new Window(120, 60), 1), Payload.ofBytes(new byte[0])));
  }

  @Test
  void withoutPointer_publishesAndLeavesThePointerAlone() throws Exception {
    PublishReport r = Idem.publisher(store).writer("w").withoutPointer().build()
        .publish(spec, Payload.ofBytes(new byte[] {1}));

    assertEquals(PublishStatus.CREATED, r.status());
    assertNull(r.pointer());
    assertTrue(store.readPointer("border-state").isEmpty());
  }

  @Test
  void allowEmptyResults_publishesAZeroBytePayload() throws Exception {
    PublishReport r = Idem.publisher(store).writer("w").allowEmptyResults().build()
        .publish(spec, Payload.ofBytes(new byte[0]));

    assertEquals(PublishStatus.CREATED, r.status());
    assertEquals(0, r.stored().size());
  }

  @Test
  void badValues_refusedWhenGiven() {
    assertThrows(IllegalArgumentException.class, () -> Idem.publisher(store).writer("has space"));
    assertThrows(IllegalArgumentException.class, () -> Idem.publisher(store).minFree(-1));
    assertThrows(IllegalArgumentException.class, () -> Idem.publisher(store).maxClockSkew(Duration.ofSeconds(-1)));
    assertThrows(NullPointerException.class, () -> Idem.publisher(null));
  }
}
