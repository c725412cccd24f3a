package dev.idem.store.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.Idem;
import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.publish.ClaimReport.ClaimStatus;
import dev.idem.core.publish.PublishReport;
import dev.idem.core.publish.PublishStatus;
import dev.idem.core.store.Claim;
import dev.idem.core.store.Claims;
import dev.idem.core.store.Payload;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sweep's removal of the claim directories releases leave empty ({@code _idem/claims/<key>/}): old
 * enough by the grace, deepest first, and, beside a claimer writing into the directory at that moment,
 * at worst a failed claim (the claimer runs without one), never an error of the sweep. The interleavings
 * are played through the filesystem seam, and ages are made by setting modification times.
 */
class FsClaimsSweepTest {
  private static final Duration TTL = Duration.ofSeconds(30);
  private static final Duration GRACE = Duration.ofMinutes(10);
  private static final RunSpec SPEC = RunSpec.of("orders", new Window(1_726_000_000L, 3600), 1);
  private final String key = SPEC.outputKey().toString();

  @TempDir Path root;

  private Path claims() {
    return root.resolve("_idem/claims");
  }

  /** The claim directories from {@code claims()} down to the key's, outermost first. */
  private List<Path> keyDirs() {
    List<Path> dirs = new ArrayList<>();
    Path d = claims();
    for (Path name : Path.of(key)) {
      d = d.resolve(name);
      dirs.add(d);
    }
    return dirs;
  }

  private static void makeOld(List<Path> dirs) throws IOException {
    for (Path d : dirs) {
      Files.setLastModifiedTime(d, FileTime.from(Instant.now().minus(Duration.ofHours(1))));
    }
  }

  private static String line(String verb, String relative) {
    return verb + " " + relative + "/ (empty claim directory, modified ";
  }

  private void releasedClaim(FsObjectStore s) throws IOException {
    Claims.Claimed c = s.claim(key, "host-a:1", null, TTL);
    assertTrue(s.releaseClaim(c.claim()));
  }

  @Test
  void sweep_releasedClaimOlderThanGrace_removesItsDirectoriesKeepsTheClaimsRoot() throws Exception {
    FsObjectStore s = FsObjectStore.open(root);
    releasedClaim(s);
    makeOld(keyDirs());

    List<String> swept = s.sweep(GRACE, false);

    assertEquals(3, swept.size(), swept.toString());
    assertTrue(swept.get(0).startsWith(line("removed", "_idem/claims/orders")), swept.get(0));
    assertTrue(swept.get(2).startsWith(line("removed", "_idem/claims/" + key)), swept.get(2));
    assertFalse(Files.exists(keyDirs().get(0)));
    assertTrue(Files.isDirectory(claims()), "the claims' root stays");
  }

  @Test
  void sweep_dryRun_listsTheSameRemovesNothing() throws Exception {
    FsObjectStore s = FsObjectStore.open(root);
    releasedClaim(s);
    makeOld(keyDirs());

    List<String> swept = s.sweep(GRACE, true);

    assertEquals(3, swept.size(), swept.toString());
    assertTrue(swept.get(2).startsWith(line("would remove", "_idem/claims/" + key)), swept.get(2));
    assertTrue(Files.isDirectory(keyDirs().get(2)));
  }

  @Test
  void sweep_releasedWithinTheGrace_kept() throws Exception {
    FsObjectStore s = FsObjectStore.open(root);
    releasedClaim(s);
    makeOld(keyDirs().subList(0, 2)); // the key's own directory was touched by the release just now

    assertEquals(List.of(), s.sweep(GRACE, false));
    assertTrue(Files.isDirectory(keyDirs().get(2)));
  }

  @Test
  void sweep_directoryHoldingAClaim_keptAndTheClaimStays() throws Exception {
    FsObjectStore s = FsObjectStore.open(root);
    Claim held = s.claim(key, "host-a:1", null, TTL).claim();
    makeOld(keyDirs());

    assertEquals(List.of(), s.sweep(GRACE, false));
    assertEquals(held.id(), s.readClaim(key).orElseThrow().id());
  }

  @Test
  void claim_sweepRemovesItsDirectoryBeforeItsTemporaryFile_claimFailsSweepSucceeds() throws Exception {
    List<String> swept = new ArrayList<>();
    FsObjectStore[] store = new FsObjectStore[1];
    ForwardingOps sweepFirst = new ForwardingOps() {
      @Override
      public FileChannel createNew(Path file) throws IOException {
        if (swept.isEmpty() && file.getFileName().toString().startsWith(".tmp-claim")) {
          // The claimer made (or found) the key's directory; gc's sweep runs before its first file is there.
          makeOld(List.of(file.getParent()));
          swept.addAll(store[0].sweep(GRACE, false));
        }
        return super.createNew(file);
      }
    };
    store[0] = sweepFirst.openStore(root, FsObjectStore.Options.defaults());

    assertThrows(IOException.class, () -> store[0].claim(key, "host-a:1", null, TTL), "the claim fails");

    assertEquals(1, swept.size(), swept.toString());
    assertTrue(swept.get(0).startsWith(line("removed", "_idem/claims/" + key)), swept.get(0));
    assertEquals(Claims.Result.HELD, store[0].claim(key, "host-b:2", null, TTL).result(), "the next claim is made");
  }

  @Test
  void publish_sweepRemovesTheClaimDirectoryMidClaim_runsWithoutAClaimAndPublishes() throws Exception {
    boolean[] swept = {false};
    FsObjectStore[] store = new FsObjectStore[1];
    ForwardingOps sweepFirst = new ForwardingOps() {
      @Override
      public FileChannel createNew(Path file) throws IOException {
        if (!swept[0] && file.getFileName().toString().startsWith(".tmp-claim")) {
          makeOld(List.of(file.getParent()));
          swept[0] = !store[0].sweep(GRACE, false).isEmpty();
        }
        return super.createNew(file);
      }
    };
    store[0] = sweepFirst.openStore(root, FsObjectStore.Options.defaults());

    PublishReport report = Idem.publisher(store[0]).writer("host-a").withoutPointer().build()
        .publish(SPEC, (spec, k) -> Payload.ofBytes("result".getBytes(StandardCharsets.UTF_8)));

    assertTrue(swept[0], "the directory was removed under the claimer");
    assertEquals(ClaimStatus.FAILED, report.claim().status());
    assertEquals(PublishStatus.CREATED, report.status());
    assertEquals("result", new String(Fixtures.read(store[0], key), StandardCharsets.UTF_8));
  }

  @Test
  void sweep_claimerWritesBeforeTheDirectoryIsRemoved_directoryAndClaimKept() throws Exception {
    List<Claim> claimed = new ArrayList<>();
    FsObjectStore[] store = new FsObjectStore[1];
    Path keyDir = keyDirs().get(2);
    ForwardingOps claimFirst = new ForwardingOps() {
      @Override
      public boolean deleteIfExists(Path file) throws IOException {
        if (claimed.isEmpty() && file.equals(keyDir)) {
          // The sweep found the directory empty and old; a claimer writes into it before the rmdir.
          claimed.add(store[0].claim(key, "host-b:2", null, TTL).claim());
        }
        return super.deleteIfExists(file);
      }
    };
    store[0] = claimFirst.openStore(root, FsObjectStore.Options.defaults());
    releasedClaim(store[0]);
    makeOld(keyDirs());

    assertEquals(List.of(), store[0].sweep(GRACE, false), "nothing removed, no error");

    assertEquals(1, claimed.size());
    assertEquals(claimed.get(0).id(), store[0].readClaim(key).orElseThrow().id(), "the claim is held and readable");
  }
}
