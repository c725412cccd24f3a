package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoCommandTest {
  @TempDir
  Path dir;

  @Test
  void demo_tellsTheStoryAndExits0() {
    Cli.Result r = new Cli().run("demo");
    assertEquals(0, r.code(), r.describe());
    String out = r.out();
    assertTrue(out.contains("Act 1."), r.describe());
    assertTrue(out.matches("(?s).*build-4[12] +CREATED.*"), r.describe());
    assertTrue(out.matches("(?s).*build-4[12] +(SKIPPED|IDENTICAL).*"), r.describe());
    assertTrue(out.matches("(?s).*build-43 +DIVERGENT.*"), r.describe());
    assertTrue(out.matches("(?s).*\n  DIVERGENT idem-demo/1726000020/state-[0-9a-f]{64} writes=2 payloads=2\n.*"), r.describe());
    assertTrue(out.contains("\n  scanned prefix=idem-demo/ divergent_keys=1\n"), r.describe());
    assertTrue(out.contains("pointer idem-demo -> idem-demo/1726000020/"), r.describe());
    assertTrue(out.contains("The demo exits 0"), r.describe());
  }

  @Test
  void demo_onAGivenStoreWithJson() {
    String store = "file:" + dir.resolve("s");
    Cli.Result r = new Cli().run("demo", "--store", store, "--json");
    assertEquals(0, r.code(), r.describe());
    Map<String, Object> j = MiniJson.object(r.out());
    assertEquals(1, ((List<?>) j.get("divergent_keys")).size(), r.describe());
    assertTrue(Files.isDirectory(dir.resolve("s").resolve(DemoCommand.PIPELINE)), "the given store is kept");
    Cli.Result scan = new Cli().run("scan", "--store", store);
    assertEquals(ExitCodes.DIVERGENT, scan.code(), "a real scan exits 1: " + scan.describe());
  }

  @Test
  void demo_playsInAPipelineOfItsOwn_notTheOneTheExamplesUse() {
    String store = "file:" + dir.resolve("s");
    assertEquals(0, new Cli().run("demo", "--store", store).code());
    Cli.Result scan = new Cli().run("scan", "--store", store, "--pipeline", "border-state", "--allow-empty");
    assertEquals(0, scan.code(), "the pipeline every example uses holds no staged divergence: " + scan.describe());
  }

  @Test
  void demo_onANonEmptyStore_isRefusedAndWritesNothing() throws Exception {
    String store = "file:" + dir.resolve("s");
    Path rows = Files.writeString(dir.resolve("rows"), "rows\n");
    Cli.Result pub = new Cli().run("publish", "--store", store, "--file", rows.toString(), "--pipeline", "orders",
        "--window", "60s", "--at", "1726000030", "--schema", "1");
    assertEquals(0, pub.code(), pub.describe());
    List<Path> before;
    try (Stream<Path> files = Files.walk(dir.resolve("s"))) {
      before = files.sorted().toList();
    }

    Cli.Result r = new Cli().run("demo", "--store", store);

    assertEquals(ExitCodes.USAGE, r.code(), r.describe());
    assertEquals(1, r.errLines().length, r.describe());
    assertTrue(r.err().contains("holds objects") && r.err().contains("orders/"), r.describe());
    try (Stream<Path> files = Files.walk(dir.resolve("s"))) {
      assertEquals(before, files.sorted().toList(), "nothing written");
    }
  }
}
