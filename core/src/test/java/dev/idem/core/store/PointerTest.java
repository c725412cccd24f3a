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
  void parse_storedUnderAnotherPipeline_rejected() throws Exception {
    byte[] doc = sample().toBytes();
    assertEquals(sample(), Pointer.parse(doc, "s3://b/_idem/pointers/border-state/latest", "border-state"));
    Pointer.MalformedPointerException e = assertThrows(Pointer.MalformedPointerException.class,
        () -> Pointer.parse(doc, "s3://b/_idem/pointers/orders/latest", "orders"));
    assertEquals("malformed pointer s3://b/_idem/pointers/orders/latest: names pipeline border-state, not orders",
        e.getMessage());
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

  static Pointer rewound() {
    String from = RunSpec.of("border-state", new Window(4_070_908_800L, 60), 3).outputKey().toString();
    return sample().withRewind(new Pointer.Rewind(from, sample().key(), "ops-alice", Instant.parse("2026-12-02T15:00:00Z"),
        "INC-42: --at typo published 2099 — back to the last good window"));
  }

  @Test
  void toBytes_withRewind_isFormat2WithTheRecordLines() {
    String text = new String(rewound().toBytes(), StandardCharsets.UTF_8);
    assertTrue(text.startsWith("idem-pointer 2\npipeline=border-state\n"), text);
    assertTrue(text.endsWith("published_at=2024-09-10T20:27:00Z\n"
        + "rewound_from=" + rewound().rewind().from() + "\n"
        + "rewound_to=" + sample().key() + "\n"
        + "rewound_by=ops-alice\n"
        + "rewound_at=2026-12-02T15:00:00Z\n"
        + "rewind_reason=INC-42: --at typo published 2099 — back to the last good window\n"), text);
  }

  @Test
  void toBytes_parse_withRewind_roundTrips() throws Exception {
    assertEquals(rewound(), Pointer.parse(rewound().toBytes(), "test"));
  }

  @Test
  void toBytes_withoutRewind_unchangedFormat1() throws Exception {
    // What earlier releases wrote: it must still parse, to a pointer with no rewind record.
    String v1 = "idem-pointer 1\npipeline=border-state\nkey=" + sample().key() + "\nwindow_start=1726000000\n"
        + "window_length=60\nschema_version=3\nsha256=" + "ab".repeat(32) + "\nsize=1234\nwriter=host-a:42:k3\n"
        + "published_at=2024-09-10T20:27:00Z\n";
    assertEquals(v1, new String(sample().toBytes(), StandardCharsets.UTF_8));
    Pointer p = Pointer.parse(v1.getBytes(StandardCharsets.UTF_8), "v1");
    assertEquals(sample(), p);
    assertEquals(null, p.rewind());
  }

  @Test
  void parse_rewindFieldsOutOfPlace_rejected() {
    String v2 = new String(rewound().toBytes(), StandardCharsets.UTF_8);
    String[] bad = {
      v2.replace("idem-pointer 2", "idem-pointer 1"),
      v2.replace("idem-pointer 2", "idem-pointer 3"),
      v2.replaceAll("rewound_by=[^\n]*\n", ""),
      v2.replace("rewind_reason=INC-42", "rewind_reason= INC-42"),
      v2.replace("rewound_at=2026-12-02T15:00:00Z", "rewound_at=today"),
      v2.replace("rewound_to=border-state/1726000000/", "rewound_to=other/1726000000/"),
    };
    for (String b : bad) {
      Pointer.MalformedPointerException e = assertThrows(Pointer.MalformedPointerException.class,
          () -> Pointer.parse(b.getBytes(StandardCharsets.UTF_8), "latest"), b);
      assertFalse(e.getMessage().contains("\n"), e.getMessage());
    }
  }

  @Test
  void rewind_reasonBlankMultiLineOrTooLong_rejected() {
    for (String reason : new String[] {"", "  ", "two\nlines", "tab\there", " padded", "x".repeat(501)}) {
      assertThrows(IllegalArgumentException.class, () -> Pointer.Rewind.requireReason(reason), reason);
    }
    assertEquals("x".repeat(500), Pointer.Rewind.requireReason("x".repeat(500)));
  }

  @Test
  void constructor_rewindToALaterWindow_rejected() {
    Pointer.Rewind ahead = new Pointer.Rewind(rewound().rewind().from(), rewound().rewind().from(), "ops", Instant.EPOCH, "r");
    assertThrows(IllegalArgumentException.class, () -> sample().withRewind(ahead));
  }
}
