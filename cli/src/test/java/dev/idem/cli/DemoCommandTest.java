package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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
    assertTrue(out.matches("(?s).*\n  DIVERGENT border-state/1726000020/state-[0-9a-f]{64} writes=2 payloads=2\n.*"), r.describe());
    assertTrue(out.contains("\n  scanned prefix=border-state/ divergent_keys=1\n"), r.describe());
    assertTrue(out.contains("pointer border-state -> border-state/1726000020/"), r.describe());
    assertTrue(out.contains("The demo exits 0"), r.describe());
  }

  @Test
  void demo_onAGivenStoreWithJson() {
    String store = "file:" + dir.resolve("s");
    Cli.Result r = new Cli().run("demo", "--store", store, "--json");
    assertEquals(0, r.code(), r.describe());
    Map<String, Object> j = MiniJson.object(r.out());
    assertEquals(1, ((List<?>) j.get("divergent_keys")).size(), r.describe());
    assertTrue(Files.isDirectory(dir.resolve("s").resolve("border-state")), "the given store is kept");
    Cli.Result scan = new Cli().run("scan", "--store", store);
    assertEquals(ExitCodes.DIVERGENT, scan.code(), "a real scan exits 1: " + scan.describe());
  }
}
