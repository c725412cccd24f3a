package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import dev.idem.core.testing.InMemoryObjectStore;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --pointer-timeout}: one deadline for the pointer advance, and which wait ran out (B1). */
class PointerTimeoutTest {
  @TempDir
  Path dir;

  private String[] spec(String command, long at, String store, String... extra) {
    List<String> args = new ArrayList<>(List.of(command.split(" ")));
    args.addAll(List.of("--pipeline", "p", "--window", "60s", "--at", String.valueOf(at), "--schema", "1", "--store", store));
    args.addAll(List.of(extra));
    return args.toArray(String[]::new);
  }

  private Cli.Result publish(Cli cli, String store, long at, String... extra) throws IOException {
    Path f = Files.writeString(dir.resolve("payload-" + at), "rows " + at);
    return cli.run(spec("publish --file " + f, at, store, extra));
  }

  private static Path lockFileUnder(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(p -> p.getFileName().toString().equals("latest.lock")).findFirst().orElseThrow();
    }
  }

  @Test
  void publish_pointerLockNeverReleased_busyExit3AtTheTimeoutWithTheObjectPublished() throws Exception {
    Path root = dir.resolve("store");
    String store = "file:" + root;
    assertEquals(0, publish(new Cli(), store, 1_726_000_030L).code());
    // Another holder of the kernel lock that never lets go (a stopped process, in effect).
    try (FileChannel ch = FileChannel.open(lockFileUnder(root), StandardOpenOption.WRITE);
        FileLock held = ch.lock()) {
      assertTrue(held.isValid());
      Cli.Result r = assertTimeoutPreemptively(Duration.ofSeconds(60),
          () -> publish(new Cli(), store, 1_726_000_090L, "--pointer-timeout", "0s"));

      assertEquals(ExitCodes.CONTENDED, r.code(), r.describe());
      assertTrue(r.out().startsWith("CREATED ") && r.out().contains(" pointer=BUSY"), r.describe());
      assertTrue(r.err().contains("the pointer lock of p was not obtained within ")
          && r.err().contains("another writer holds it and has not let go"), r.describe());

      Cli.Result json = assertTimeoutPreemptively(Duration.ofSeconds(60),
          () -> publish(new Cli(), store, 1_726_000_090L, "--pointer-timeout", "1s", "--json"));
      assertEquals(ExitCodes.CONTENDED, json.code(), json.describe());
      @SuppressWarnings("unchecked")
      Map<String, Object> pointer = (Map<String, Object>) MiniJson.object(json.outLines()[0]).get("pointer");
      assertEquals("BUSY", pointer.get("status"), json.describe());
      assertTrue(((Number) pointer.get("elapsed_ms")).longValue() >= 1000, json.describe());

      Cli.Result advance = assertTimeoutPreemptively(Duration.ofSeconds(60),
          () -> new Cli().run(spec("pointer advance", 1_726_000_090L, store, "--pointer-timeout", "0s")));
      assertEquals(ExitCodes.CONTENDED, advance.code(), advance.describe());
      assertTrue(advance.out().startsWith("BUSY p "), advance.describe());
      assertTrue(advance.err().contains("was not obtained within"), advance.describe());
    }
    Cli.Result retry = publish(new Cli(), store, 1_726_000_090L);
    assertEquals(0, retry.code(), retry.describe());
    assertTrue(retry.out().startsWith("IDENTICAL ") && retry.out().contains("pointer=ADVANCED"), retry.describe());
  }

  @Test
  void publishAndAdvance_pointerMovedByOthersOnEveryAttempt_conflictExit3NamesTheRace() throws IOException {
    InMemoryObjectStore memory = new InMemoryObjectStore();
    ObjectStore outraced = (ObjectStore) Proxy.newProxyInstance(ObjectStore.class.getClassLoader(),
        new Class<?>[] {ObjectStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("compareAndSetPointer")) {
            // Another writer re-writes the pointer between this advance's read and its swap.
            PointerState now = memory.readPointer("p").orElseThrow();
            memory.compareAndSetPointer("p", now.token(), now.pointer());
          }
          try {
            return method.invoke(memory, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    assertEquals(0, publish(new Cli().opener(uri -> memory), "file:unused", 1_726_000_030L).code());
    Pointer before = memory.readPointer("p").orElseThrow().pointer();

    Cli.Result r = publish(new Cli().opener(uri -> outraced), "file:unused", 1_726_000_090L, "--pointer-timeout", "1s");

    assertEquals(ExitCodes.CONTENDED, r.code(), r.describe());
    assertTrue(r.out().startsWith("CREATED ") && r.out().contains(" pointer=CONFLICT"), r.describe());
    assertTrue(r.err().contains("the pointer of p was moved by other writers on every attempt within "), r.describe());
    assertEquals(before.position(), memory.readPointer("p").orElseThrow().pointer().position());

    Cli.Result advance = new Cli().opener(uri -> outraced)
        .run(spec("pointer advance", 1_726_000_090L, "file:unused", "--pointer-timeout", "1s", "--json"));
    assertEquals(ExitCodes.CONTENDED, advance.code(), advance.describe());
    assertEquals(1, advance.outLines().length, "one JSON object: " + advance.describe());
    assertTrue(advance.out().contains("\"status\":\"CONFLICT\""), advance.describe());
    assertTrue(advance.err().startsWith("idem pointer advance: the pointer of p was moved by other writers"), advance.describe());
    assertEquals(before.position(), memory.readPointer("p").orElseThrow().pointer().position());
  }

  @Test
  void publish_pointerTimeoutNotADuration_usageExit2NothingWritten() throws IOException {
    Path root = dir.resolve("store");
    Cli.Result r = publish(new Cli(), "file:" + root, 1_726_000_030L, "--pointer-timeout", "30");
    assertEquals(ExitCodes.USAGE, r.code(), r.describe());
    assertEquals(1, r.errLines().length, r.describe());
    assertTrue(r.err().contains("--pointer-timeout"), r.describe());
    assertTrue(Files.notExists(root), r.describe());
  }
}
