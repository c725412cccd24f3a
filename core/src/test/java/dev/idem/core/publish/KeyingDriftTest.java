package dev.idem.core.publish;

import dev.idem.core.Idem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.testing.InMemoryObjectStore;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Two builds that declare different inputs for one window and schema: reported, never passed off as current. */
class KeyingDriftTest {
  private final InMemoryObjectStore store = new InMemoryObjectStore();
  private final Window window = new Window(1_726_000_000L, 60);
  private final RunSpec oldBuild = RunSpec.of("border-state", window, 3).withInput("snapshot", "v1");
  private final RunSpec newBuild = RunSpec.of("border-state", window, 3).withInput("snapshot", "v1").withInput("columns", "v2");

  private static Payload bytes(String s) {
    return Payload.ofBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void publish_samePositionOtherKey_reportedAndPointerKept() throws Exception {
    assertNotEquals(oldBuild.outputKey(), newBuild.outputKey());
    PublishReport first = Idem.publisher(store).writer("old-replica").build().publish(oldBuild, bytes("rows"));
    PublishReport second = Idem.publisher(store).writer("new-replica").build().publish(newBuild, bytes("rows, more columns"));
    assertEquals(AdvanceStatus.ADVANCED, first.pointer().status());
    assertEquals(PublishStatus.CREATED, second.status());
    assertEquals(AdvanceStatus.SAME_POSITION_OTHER_KEY, second.pointer().status());
    assertEquals(oldBuild.outputKey().toString(), second.pointer().current().key());
    Pointer p = store.readPointer("border-state").orElseThrow().pointer();
    assertEquals(oldBuild.outputKey().toString(), p.key(), "the pointer keeps the first key");
  }

  @Test
  void publish_sameKeyAgain_stillAlreadyCurrent() throws Exception {
    Idem.publisher(store).writer("old-replica").build().publish(oldBuild, bytes("rows"));
    PublishReport again = Idem.publisher(store).writer("new-replica").build().publish(oldBuild, bytes("rows"));
    assertEquals(AdvanceStatus.ALREADY_CURRENT, again.pointer().status());
  }

  @Test
  void publish_schemaBump_advancesNotDrift() throws Exception {
    Idem.publisher(store).writer("old-replica").build().publish(oldBuild, bytes("rows"));
    RunSpec bumped = RunSpec.of("border-state", window, 4).withInput("snapshot", "v1");
    assertEquals(AdvanceStatus.ADVANCED, Idem.publisher(store).writer("new-replica").build().publish(bumped, bytes("v4 rows")).pointer().status());
    assertEquals(AdvanceStatus.NEWER_PRESENT, Idem.publisher(store).writer("late-old").build().publish(oldBuild, bytes("rows")).pointer().status());
  }
}
