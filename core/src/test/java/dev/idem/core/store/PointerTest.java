package dev.idem.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class PointerTest {
  static Pointer sample() {
    String key = RunSpec.of("border-state", new Window(1_726_000_000L, 60), 3).outputKey().toString();
    return new Pointer("border-state", key, 1_726_000_000L, 60, 3, "ab".repeat(32), 1234, "host-a:42:k3", Instant.parse("2024-09-10T20:27:00Z"));
  }

  @Test
  void toBytes_parse_roundTrips() throws Exception {
    Pointer p = sample();
    assertEquals(p, Pointer.parse(p.toBytes(), "test"));
  }

  @Test
  void toBytes_isVersionedHumanReadableText() {
    String text = new String(sample().toBytes(), StandardCharsets.UTF_8);
    assertTrue(text.startsWith("idem-pointer 1\npipeline=border-state\nkey=border-state/1726000000/state-"), text);
    assertTrue(text.contains("\nschema_version=3\n") && text.endsWith("published_at=2024-09-10T20:27:00Z\n"), text);
  }

  @Test
  void parse_truncatedAtEveryLength_rejected() {
    byte[] full = sample().toBytes();
    for (int len = 0; len < full.length; len++) {
      byte[] cut = java.util.Arrays.copyOf(full, len);
      assertThrows(Pointer.MalformedPointerException.class, () -> Pointer.parse(cut, "cut"), "length " + len);
    }
  }

  @Test
  void parse_tamperedDocuments_rejectedWithOneLineReason() {
    String good = new String(sample().toBytes(), StandardCharsets.UTF_8);
    String[] bad = {
      good.replace("idem-pointer 1", "idem-pointer 2"),
      good.replace("size=1234", "size=-1"),
      good.replace("size=1234\n", "size=1234\nsize=1234\n"),
      good + "extra=1\n",
      good.replace("pipeline=border-state", "pipeline=other"),
      good.replace("window_start=1726000000", "window_start=1726000060"),
      good.replace("sha256=ab", "sha256=AB"),
      good.replace("published_at=2024-09-10T20:27:00Z", "published_at=yesterday"),
      good.replace("writer=host-a:42:k3", "writer=has space"),
      "",
    };
    for (String b : bad) {
      Pointer.MalformedPointerException e = assertThrows(Pointer.MalformedPointerException.class,
          () -> Pointer.parse(b.getBytes(StandardCharsets.UTF_8), "latest"), b);
      assertFalse(e.getMessage().contains("\n"), e.getMessage());
      assertTrue(e.getMessage().startsWith("malformed pointer latest: "), e.getMessage());
    }
  }

  @Test
  void position_ordersByWindowThenSchema() {
    assertTrue(new Pointer.Position(60, 9).compareTo(new Pointer.Position(120, 1)) < 0);
    assertTrue(new Pointer.Position(120, 2).compareTo(new Pointer.Position(120, 1)) > 0);
    assertEquals(0, new Pointer.Position(120, 1).compareTo(new Pointer.Position(120, 1)));
  }
}
