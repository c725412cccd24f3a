package dev.idem.store.fs;

import static dev.idem.store.fs.Fixtures.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.store.Claim;
import dev.idem.core.store.Claims;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The filesystem store's advisory claims ({@code _idem/claims/<key>/claim.<hex>}): who holds, who
 * yields, takeover of a stale claim, renewal, release, ages by the file's time, and bad entries treated
 * as absent. Staleness is made by setting an entry's modification time, never by waiting.
 */
class FsClaimsTest {
  private static final Duration TTL = Duration.ofSeconds(30);
  private static final Duration EXPECTED = Duration.ofMinutes(2);
  private final String key = key("orders", 1_726_000_000L);

  @TempDir Path root;

  private FsObjectStore store() throws IOException {
    return FsObjectStore.open(root);
  }

  private Path claimDir(String k) {
    return root.resolve("_idem/claims").resolve(k);
  }

  private List<Path> entries(String k) throws IOException {
    try (Stream<Path> s = Files.list(claimDir(k))) {
      return s.sorted().toList();
    }
  }

  private void age(Claim c, Duration ago) throws IOException {
    Files.setLastModifiedTime(claimDir(c.key()).resolve(c.id()), FileTime.from(Instant.now().minus(ago)));
  }

  @Test
  void claim_noClaim_heldWrittenWholeAndReadBack() throws Exception {
    FsObjectStore s = store();
    Claims.Claimed a = s.claim(key, "host-a:1", EXPECTED, TTL);
    assertEquals(Claims.Result.HELD, a.result());
    assertNull(a.stale(), "nothing taken over");
    assertEquals(List.of(claimDir(key).resolve(a.claim().id())), entries(key), "one entry, no temporary left");
    Claim read = s.readClaim(key).orElseThrow();
    assertEquals(a.claim().id(), read.id());
    assertEquals("host-a:1", read.writer());
    assertEquals(Optional.of(EXPECTED), read.expectedDuration());
    assertEquals(a.claim().started(), read.started());
    assertTrue(read.isFresh(TTL));
  }

  @Test
  void claim_freshClaimOfAnother_takenNothingWritten() throws Exception {
    FsObjectStore s = store();
    Claim a = s.claim(key, "host-a:1", EXPECTED, TTL).claim();
    Claims.Claimed b = store().claim(key, "host-b:2", null, TTL);
    assertEquals(Claims.Result.TAKEN, b.result());
    assertEquals(a.id(), b.claim().id());
    assertEquals("host-a:1", b.claim().writer());
    assertEquals(1, entries(key).size());
  }

  @Test
  void claim_staleClaim_takenOverBesideIt() throws Exception {
    FsObjectStore s = store();
    Claim a = s.claim(key, "host-a:1", EXPECTED, TTL).claim();
    age(a, Duration.ofHours(1));
    Claims.Claimed b = s.claim(key, "host-b:2", null, TTL);
    assertEquals(Claims.Result.HELD, b.result());
    assertEquals(a.id(), b.stale().id(), "the claim taken over is named");
    assertEquals("host-b:2", s.readClaim(key).orElseThrow().writer(), "the freshest claim is read");
    assertEquals(2, entries(key).size(), "the stale claim stays for gc");
  }

  @Test
  void claim_anotherClaimsBetweenLookAndWrite_laterWriterYields() throws Exception {
    FsObjectStore a = store();
    Claim[] first = new Claim[1];
    ForwardingOps interleave = new ForwardingOps() {
      @Override
      public void createLink(Path link, Path existing) throws IOException {
        if (first[0] == null && link.getFileName().toString().startsWith("claim.")) {
          // host-a claims after host-b looked and found nothing, and before host-b's entry appears.
          first[0] = a.claim(key, "host-a:1", EXPECTED, TTL).claim();
          age(first[0], Duration.ofSeconds(5));
        }
        super.createLink(link, existing);
      }
    };
    FsObjectStore b = interleave.openStore(root, FsObjectStore.Options.defaults());
    Claims.Claimed r = b.claim(key, "host-b:2", null, TTL);
    assertEquals(Claims.Result.TAKEN, r.result(), "the younger of two fresh claims yields");
    assertEquals(first[0].id(), r.claim().id());
    assertEquals(List.of(claimDir(key).resolve(first[0].id())), entries(key), "the yielding writer's entry removed");
  }

  @Test
  void claim_eightWritersAtOnce_atLeastOneHoldsAndOnlyHoldersLeaveEntries() throws Exception {
    int writers = 8;
    CyclicBarrier start = new CyclicBarrier(writers);
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      List<Future<Claims.Claimed>> results = new ArrayList<>();
      for (int i = 0; i < writers; i++) {
        String writer = "host-" + i + ":1";
        results.add(pool.submit(() -> {
          FsObjectStore s = store();
          start.await();
          return s.claim(key, writer, null, TTL);
        }));
      }
      List<String> held = new ArrayList<>();
      for (Future<Claims.Claimed> f : results) {
        Claims.Claimed c = f.get();
        if (c.result() == Claims.Result.HELD) {
          held.add(c.claim().id());
        }
      }
      assertFalse(held.isEmpty(), "the oldest entry's writer always holds");
      assertEquals(held.stream().map(claimDir(key)::resolve).sorted().toList(), entries(key),
          "every writer that yielded removed its entry");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void renewClaim_newEntryOldOneDeleted() throws Exception {
    FsObjectStore s = store();
    Claim held = s.claim(key, "host-a:1", EXPECTED, TTL).claim();
    age(held, Duration.ofMinutes(5));
    assertFalse(s.readClaim(key).orElseThrow().isFresh(TTL));
    Claim renewed = s.renewClaim(held);
    assertNotEquals(held.id(), renewed.id());
    assertEquals(held.started(), renewed.started());
    assertEquals(List.of(claimDir(key).resolve(renewed.id())), entries(key));
    Claim read = s.readClaim(key).orElseThrow();
    assertEquals(renewed.id(), read.id());
    assertTrue(read.isFresh(TTL), "renewed five minutes after its entry was written: " + read.age());
  }

  @Test
  void renewClaim_entryRemovedMeanwhile_writtenAgain() throws Exception {
    FsObjectStore s = store();
    Claim held = s.claim(key, "host-a:1", EXPECTED, TTL).claim();
    assertTrue(s.releaseClaim(held));
    Claim renewed = s.renewClaim(held);
    assertEquals(Optional.of(renewed.id()), s.readClaim(key).map(Claim::id));
  }

  @Test
  void releaseClaim_removesThatEntryOnly() throws Exception {
    FsObjectStore s = store();
    Claim stale = s.claim(key, "host-a:1", EXPECTED, TTL).claim();
    age(stale, Duration.ofHours(1));
    Claim mine = s.claim(key, "host-b:2", null, TTL).claim();
    assertTrue(s.releaseClaim(mine));
    assertFalse(s.releaseClaim(mine), "released twice: nothing there");
    assertEquals(Optional.of(stale.id()), s.readClaim(key).map(Claim::id));
  }

  @Test
  void releaseClaim_idNotOfThisStore_refused() throws Exception {
    FsObjectStore s = store();
    Claim forged = new Claim(key, "../../../../x", "host-a:1", Instant.EPOCH, null, Duration.ZERO);
    assertThrows(IllegalArgumentException.class, () -> s.releaseClaim(forged));
  }

  @Test
  void readClaim_ageIsFileTimeToNowLessSkewAllowance() throws Exception {
    FsObjectStore s = store();
    Claim c = s.claim(key, "host-a:1", EXPECTED, TTL).claim();
    Instant before = Instant.now();
    Instant written = before.truncatedTo(ChronoUnit.SECONDS).minusSeconds(10);
    Files.setLastModifiedTime(claimDir(key).resolve(c.id()), FileTime.from(written));
    Duration age = s.readClaim(key).orElseThrow().age();
    Instant after = Instant.now();
    Duration skew = Duration.ofSeconds(ClaimFiles.SKEW_SECONDS);
    assertTrue(age.compareTo(Duration.between(written, before).minus(skew)) >= 0, age.toString());
    assertTrue(age.compareTo(Duration.between(written, after).minus(skew)) <= 0, age.toString());
  }

  @Test
  void readClaim_entryStampedAhead_ageZero() throws Exception {
    FsObjectStore s = store();
    Claim c = s.claim(key, "host-a:1", EXPECTED, TTL).claim();
    Files.setLastModifiedTime(claimDir(key).resolve(c.id()), FileTime.from(Instant.now().plus(Duration.ofHours(1))));
    assertEquals(Duration.ZERO, s.readClaim(key).orElseThrow().age());
  }

  @Test
  void readClaim_malformedUnreadableOrForeignEntries_treatedAsAbsent() throws Exception {
    FsObjectStore s = store();
    Path dir = claimDir(key);
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("claim.0000000000000001"), "not a claim\n");
    Files.write(dir.resolve("claim.0000000000000002"), new byte[0]);
    Claim other = new Claim(key("other", 1_726_000_000L), "x", "host-c:3", Instant.now(), null, Duration.ZERO);
    Files.write(dir.resolve("claim.0000000000000003"), other.toBytes());
    Claim wellFormed = new Claim(key, "x", "host-c:3", Instant.now(), null, Duration.ZERO);
    Files.write(dir.resolve("claim.0000000000000004"), truncated(wellFormed.toBytes()));
    Files.write(dir.resolve("claim-by-hand"), wellFormed.toBytes());
    Files.createSymbolicLink(dir.resolve("claim.0000000000000005"), dir.resolve("claim-by-hand"));
    Files.createDirectory(dir.resolve("claim.0000000000000006"));
    assertEquals(Optional.empty(), s.readClaim(key));
    assertEquals(List.of(), s.listClaims("orders/"));
    assertEquals(Claims.Result.HELD, s.claim(key, "host-b:2", null, TTL).result(), "bad entries never block");
  }

  private static byte[] truncated(byte[] b) {
    return new String(b, StandardCharsets.UTF_8).substring(0, b.length - 1).getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void readClaim_noClaims_empty() throws Exception {
    assertEquals(Optional.empty(), store().readClaim(key));
    assertEquals(List.of(), store().listClaims(""));
  }

  @Test
  void listClaims_prefix_everyClaimByKeyFreshestFirstStaleIncluded() throws Exception {
    FsObjectStore s = store();
    String later = key("orders", 1_726_000_060L);
    String elsewhere = key("billing", 1_726_000_000L);
    Claim stale = s.claim(key, "host-a:1", EXPECTED, TTL).claim();
    age(stale, Duration.ofHours(1));
    Claim fresh = s.claim(key, "host-b:2", null, TTL).claim();
    Claim onLater = s.claim(later, "host-a:1", null, TTL).claim();
    s.claim(elsewhere, "host-a:1", null, TTL);
    List<String> ids = s.listClaims("orders/").stream().map(Claim::id).toList();
    assertEquals(List.of(fresh.id(), stale.id(), onLater.id()), ids);
    assertEquals(4, s.listClaims("").size());
    assertEquals(List.of(onLater.id()), s.listClaims(later).stream().map(Claim::id).toList());
    assertEquals(List.of(), s.listClaims("nothing-here/"));
  }

  @Test
  void claim_linkFails_throwsAndLeavesNoEntry() throws Exception {
    ForwardingOps failing = new ForwardingOps() {
      @Override
      public void createLink(Path link, Path existing) throws IOException {
        throw new IOException("injected");
      }
    };
    FsObjectStore s = failing.openStore(root, FsObjectStore.Options.defaults());
    assertThrows(IOException.class, () -> s.claim(key, "host-a:1", EXPECTED, TTL));
    assertEquals(List.of(), entries(key), "no entry and no temporary left");
    assertEquals(Optional.empty(), store().readClaim(key));
  }

  @Test
  void claim_badArguments_refusedNothingWritten() throws Exception {
    FsObjectStore s = store();
    assertThrows(IllegalArgumentException.class, () -> s.claim(key, "host-a:1", null, Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> s.claim(key, "", null, TTL));
    assertThrows(IllegalArgumentException.class, () -> s.claim("../escape", "host-a:1", null, TTL));
    assertFalse(Files.exists(root.resolve("_idem/claims")));
  }

  @Test
  void claims_storeReachedThroughAccessor() throws Exception {
    FsObjectStore s = store();
    assertTrue(s.claims().isPresent());
    assertEquals(s, s.claims().get());
  }

  @Test
  void claimRenewRelease_forceNothing() throws Exception {
    List<String> forced = new ArrayList<>();
    ForwardingOps counting = new ForwardingOps() {
      @Override
      public void force(java.nio.channels.FileChannel channel) throws IOException {
        forced.add("file");
        super.force(channel);
      }

      @Override
      public void fsyncDirectory(Path dir) throws IOException {
        forced.add(dir.toString());
        super.fsyncDirectory(dir);
      }
    };
    FsObjectStore s = counting.openStore(root, FsObjectStore.Options.defaults());
    Claim held = s.claim(key, "host-a:1", EXPECTED, TTL).claim();
    Claim renewed = s.renewClaim(held);
    assertTrue(s.releaseClaim(renewed));
    assertEquals(List.of(), forced, "a claim is advice: a power loss may lose it, and it is written on every renewal");
  }
}
