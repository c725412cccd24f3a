package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.testing.ForwardingObjectStore;
import dev.idem.core.testing.ForwardingObjectStore.Capability;
import dev.idem.store.fs.FsObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commands on a store that lacks a capability (an embedder's store, opened here as the filesystem
 * store with the capability hidden): scan, history and ack refuse with one line and exit 8, never a
 * clean pass; gc removes what is safe and says what it skipped.
 */
class StoreCapabilitiesCliTest {
  static final long AT = 1726000020L;

  @TempDir
  Path dir;

  Path root;

  @BeforeEach
  void setUp() throws Exception {
    root = dir.resolve("store");
    for (int w = 0; w < 3; w++) {
      Path f = Files.writeString(Files.createTempFile(dir, "payload", ""), "window " + w);
      Cli.Result r = new Cli().run("publish", "--file", f.toString(), "--pipeline", "orders", "--window", "60s",
          "--at", Long.toString(AT + 60L * w), "--schema", "1", "--store", "file:" + root, "--writer", "host-a");
      assertEquals(0, r.code(), r.describe());
    }
  }

  Cli.Result without(List<Capability> hidden, String... args) {
    List<String> a = new ArrayList<>(List.of(args));
    a.addAll(List.of("--store", "file:" + root));
    return new Cli().opener(uri -> ForwardingObjectStore.without(FsObjectStore.open(root),
        hidden.toArray(new Capability[0]))).run(a.toArray(new String[0]));
  }

  private void refused(Cli.Result r, String command, String neededFor) throws Exception {
    assertEquals(ExitCodes.STORE_REFUSED, r.code(), r.describe());
    assertEquals(command + ": file:" + root.toRealPath() + " keeps no publish history, and " + neededFor
        + "; nothing written\n", r.err(), r.describe());
  }

  @Test
  void scan_storeWithoutHistory_exit8NeverClean() throws Exception {
    Cli.Result r = without(List.of(Capability.HISTORY), "scan");
    refused(r, "idem scan", "the scan judges each key by what its history recorded");
    assertEquals("", r.out(), r.describe());
    assertEquals(0, without(List.of(), "scan").code(), "the same store with its history passes");
  }

  @Test
  void history_storeWithoutHistory_exit8() throws Exception {
    refused(without(List.of(Capability.HISTORY), "history", "--pipeline", "orders"), "idem history",
        "idem history lists what it recorded");
  }

  @Test
  void ack_storeWithoutHistory_exit8NothingWritten() throws Exception {
    String key = new Cli().run("key", "--pipeline", "orders", "--window", "60s", "--at", Long.toString(AT),
        "--schema", "1").out().strip();
    refused(without(List.of(Capability.HISTORY), "ack", key, "--reason", "reviewed", "--writer", "ops"), "idem ack",
        "an acknowledgement is judged against it and recorded in it");
    assertTrue(FsObjectStore.open(root).acknowledgements("").isEmpty());
  }

  @Test
  void gc_storeWithoutRetirementMarksOrSweep_removesAndSaysWhatItSkipped() throws Exception {
    Cli.Result r = without(List.of(Capability.RETIREMENT_MARKS, Capability.SWEEP), "gc", "--pipeline", "orders",
        "--keep", "1", "--grace", "0s");
    assertEquals(0, r.code(), r.describe());
    String store = "file:" + root.toRealPath();
    assertTrue(r.out().contains("skipped: " + store + " keeps no retirement marks: none raised; a removed window "
        + "published again is reported CREATED, not REPUBLISHED\n"), r.describe());
    assertTrue(r.out().contains("skipped: " + store + " has no sweep of leftovers: nothing swept\n"), r.describe());
    assertTrue(r.out().contains(" removed=2 "), r.describe());
    assertTrue(FsObjectStore.open(root).readRetirement("orders").isEmpty(), "no mark written");

    Cli.Result json = without(List.of(Capability.SWEEP), "gc", "--pipeline", "orders", "--keep", "1", "--json");
    assertTrue(json.out().contains("\"skipped\":[\"" + store + " has no sweep of leftovers: nothing swept\"]"),
        json.describe());
  }
}
