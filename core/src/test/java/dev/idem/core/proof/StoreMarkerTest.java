package dev.idem.core.proof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class StoreMarkerTest {
  static StoreMarker sample() {
    return new StoreMarker("s3", "cas", Instant.parse("2026-12-02T14:00:00Z"), "idem 0.1.0", List.of(
        ProbeResult.held("if-none-match", "a second PUT with If-None-Match: * to _idem/probe/x", true,
            "answered 412", "no-clobber publish"),
        ProbeResult.missing("if-match", "a PUT with If-Match: \"0\" to _idem/probe/x", false,
            "ignores If-Match | wrote\nanyway", "cas pointer mode")));
  }

  @Test
  void toBytes_parse_roundTrips() throws Exception {
    StoreMarker m = sample();
    assertEquals(m, StoreMarker.parse(m.toBytes(), "test"));
  }

  @Test
  void toBytes_isVersionedTextWithOneLinePerProbe() {
    String text = new String(sample().toBytes(), StandardCharsets.UTF_8);
    assertTrue(text.startsWith("idem-store 1\nkind=s3\npointer_mode=cas\ncreated_at=2026-12-02T14:00:00Z\n"), text);
    assertTrue(text.contains("\nprobe.if-match=MISSING | optional | a PUT with If-Match: \"0\" to _idem/probe/x"
        + " | ignores If-Match wrote anyway | cas pointer mode\n"), text);
    assertEquals(8, text.split("\n").length, text);
  }

  @Test
  void probeResult_serverTextWithSeparatorsOrLineBreaks_cannotForgeFields() {
    ProbeResult r = sample().probes().get(1);
    assertFalse(r.observed().contains("|") || r.observed().contains("\n"), r.observed());
    assertEquals("ABSENT", r.answer());
    assertFalse(r.refuses());
  }

  @Test
  void parse_truncatedAtEveryLength_refused() {
    byte[] full = sample().toBytes();
    for (int len = 0; len < full.length; len++) {
      byte[] cut = Arrays.copyOf(full, len);
      assertThrows(StoreRefusedException.class, () -> StoreMarker.parse(cut, "cut"), "length " + len);
    }
  }

  @Test
  void parse_tamperedDocuments_refusedWithOneLineReason() {
    String good = new String(sample().toBytes(), StandardCharsets.UTF_8);
    String[] bad = {
      good.replace("kind=s3\n", ""),
      good.replace("pointer_mode=cas", "pointer_mode=CAS"),
      good.replace("kind=s3\n", "kind=s3\nkind=s3\n"),
      good + "extra=1\n",
      good + good.substring(good.indexOf("probe.if-none-match")),
      good.replace("=HELD | required", "=YES | required"),
      good.replace("=HELD | required", "=HELD | maybe"),
      good.replace(" | answered 412", ""),
      good.replace("created_at=2026-12-02T14:00:00Z", "created_at=yesterday"),
      good.replace("idem-store 1", "idem-pointer 1"),
    };
    for (String b : bad) {
      StoreRefusedException e = assertThrows(StoreRefusedException.class,
          () -> StoreMarker.parse(b.getBytes(StandardCharsets.UTF_8), "s3://b/p/_idem/store"), b);
      assertTrue(e.getMessage().startsWith("malformed store marker s3://b/p/_idem/store: "), e.getMessage());
      assertFalse(e.getMessage().contains("\n"), e.getMessage());
    }
  }

  @Test
  void parse_documentUpToTheSizeLimit_read() throws Exception {
    int limit = 16 * 1024;
    assertEquals("idem " + "x".repeat(200), StoreMarker.parse(sized(limit), "m").createdBy());
    StoreRefusedException e = assertThrows(StoreRefusedException.class, () -> StoreMarker.parse(sized(limit + 1), "m"));
    assertTrue(e.getMessage().startsWith("malformed store marker m: larger than 16384 bytes;"), e.getMessage());
  }

  /** A marker document of exactly {@code bytes} bytes (at least 12 KiB): its last probe's test padded to fit. */
  private static byte[] sized(int bytes) {
    int unpadded = withPadding(0).length;
    return withPadding(bytes - unpadded);
  }

  private static byte[] withPadding(int pad) {
    List<ProbeResult> probes = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      probes.add(ProbeResult.held("p" + i, "t" + "t".repeat(i == 49 ? pad : 200), true, "answered", "publish"));
    }
    return new StoreMarker("fs", "lock", Instant.EPOCH, "idem " + "x".repeat(200), probes).toBytes();
  }

  @Test
  void parse_lineWithoutAName_refusedNamingTheLine() {
    String good = new String(sample().toBytes(), StandardCharsets.UTF_8);
    for (String bad : List.of(good.replace("kind=s3", "=s3"), good.replace("kind=s3", "kind s3"))) {
      StoreRefusedException e = assertThrows(StoreRefusedException.class,
          () -> StoreMarker.parse(bad.getBytes(StandardCharsets.UTF_8), "m"));
      assertTrue(e.getMessage().startsWith("malformed store marker m: line 2 is not name=value"), e.getMessage());
    }
  }

  @Test
  void parse_newerFormat_refusedAskingForAnUpgrade() {
    String newer = new String(sample().toBytes(), StandardCharsets.UTF_8).replace("idem-store 1", "idem-store 2");
    StoreRefusedException e = assertThrows(StoreRefusedException.class,
        () -> StoreMarker.parse(newer.getBytes(StandardCharsets.UTF_8), "m"));
    assertTrue(e.getMessage().contains("upgrade idem"), e.getMessage());
  }

  @Test
  void probe_byName_findsRecordedAnswer() {
    assertTrue(sample().probe("if-none-match").orElseThrow().held());
    assertTrue(sample().probe("hard-links").isEmpty());
  }
}
