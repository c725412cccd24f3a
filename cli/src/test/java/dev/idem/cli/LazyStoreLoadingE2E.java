package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a command does not need, it does not load, and starts faster without: the S3 store, the JDK's
 * HTTP client and its XML parser only when an {@code s3://} store is used; the security providers
 * (about 20 ms to start) not for a job on a {@code file:} store, whose few hashes are made in plain
 * Java and whose temporary names need no {@code SecureRandom}; the system logger's class-path search
 * not for a publish that logs nothing. Each test runs the packaged jar in a child JVM with {@code
 * -Xlog:class+load} and reads which classes it loaded; the S3 test and the large-payload test show
 * the log does list them when they are used, so an empty match means something.
 */
class LazyStoreLoadingE2E {
  private static final Pattern S3_HTTP_XML =
      Pattern.compile("^(dev\\.idem\\.store\\.s3\\.|java\\.net\\.http\\.|javax\\.xml\\.)");
  private static final Pattern SECURITY_PROVIDERS = Pattern.compile("^(sun\\.security\\.jca\\.|java\\.security\\.Provider$)");
  private static final Pattern SYSTEM_LOGGER = Pattern.compile("^jdk\\.internal\\.logger\\.");
  private static final Pattern CLASS = Pattern.compile(" (\\S+) source:");
  private static final String[] SPEC = {"--pipeline", "lazy", "--window", "60s", "--at", "1726000030", "--schema", "1"};

  @TempDir
  Path dir;

  /** An exit code and the names of the classes the JVM loaded. */
  record Run(int code, List<String> classes) {
    List<String> s3HttpXml() {
      return matching(S3_HTTP_XML);
    }

    List<String> matching(Pattern p) {
      return classes.stream().filter(c -> p.matcher(c).find()).toList();
    }
  }

  @Test
  void help_loadsNoS3HttpOrXmlClass() throws Exception {
    Run run = idem(Map.of(), "--help");

    assertEquals(0, run.code());
    assertEquals(List.of(), run.s3HttpXml());
  }

  @Test
  void key_loadsNoS3HttpOrXmlClass() throws Exception {
    Run run = idem(Map.of(), "key", "--pipeline", "lazy", "--window", "1h", "--schema", "1", "--input", "snapshot=v1");

    assertEquals(0, run.code());
    assertEquals(List.of(), run.s3HttpXml());
  }

  @Test
  void publishThenGet_fileStore_loadNoS3HttpOrXmlClass() throws Exception {
    Path payload = Files.writeString(dir.resolve("payload"), "rows\n");
    String store = "file:" + dir.resolve("store");

    Run publish = idem(Map.of(), concat(new String[] {"publish", "--file", payload.toString(), "--store", store}, SPEC));
    Run get = idem(Map.of(), "get", "--pipeline", "lazy", "--store", store);

    assertEquals(0, publish.code());
    assertEquals(List.of(), publish.s3HttpXml());
    assertEquals(0, get.code());
    assertEquals(List.of(), get.s3HttpXml());
  }

  @Test
  void publish_fileStoreFailure_mapsItsExitCodeWithoutS3Classes() throws Exception {
    Path payload = Files.writeString(dir.resolve("payload"), "rows\n");
    // A regular file where the store's root directory should be: an I/O failure, mapped by ExitCodes.
    Path notADirectory = Files.writeString(dir.resolve("not-a-dir"), "");

    Run publish = idem(Map.of(), concat(new String[] {"publish", "--file", payload.toString(), "--store",
        "file:" + notADirectory.resolve("store")}, SPEC));

    assertEquals(ExitCodes.STORE_UNAVAILABLE, publish.code());
    assertEquals(List.of(), publish.s3HttpXml());
  }

  @Test
  void publish_s3Store_loadsTheS3Classes() throws Exception {
    Path payload = Files.writeString(dir.resolve("payload"), "rows\n");
    // Nothing listens on port 1: the store is opened and its first request fails, unavailable.
    Map<String, String> env = Map.of("AWS_ENDPOINT_URL", "http://127.0.0.1:1", "AWS_REGION", "us-east-1",
        "AWS_ACCESS_KEY_ID", "AKIAIDEMLAZYEXAMPLE1", "AWS_SECRET_ACCESS_KEY", "lazy");

    Run publish = idem(env, concat(new String[] {"publish", "--file", payload.toString(), "--store",
        "s3://lazy-bucket/exports"}, SPEC));

    assertEquals(ExitCodes.STORE_UNAVAILABLE, publish.code());
    assertTrue(publish.s3HttpXml().stream().anyMatch(c -> c.startsWith("dev.idem.store.s3.")), publish.s3HttpXml()::toString);
    assertTrue(publish.s3HttpXml().stream().anyMatch(c -> c.startsWith("java.net.http.")), publish.s3HttpXml()::toString);
  }

  @Test
  void publishRunGet_fileStore_startNoSecurityProvider() throws Exception {
    Path payload = Files.writeString(dir.resolve("payload"), "rows\n");
    String store = "file:" + dir.resolve("store");
    String[] next = {"--pipeline", "lazy", "--window", "60s", "--at", "1726000090", "--schema", "1"};

    Run publish = idem(Map.of(), concat(new String[] {"publish", "--file", payload.toString(), "--store", store}, SPEC));
    Run run = idem(Map.of(), concat(new String[] {"run", "--stdout", "--store", store}, concat(next,
        new String[] {"--", "/bin/sh", "-c", "echo rows"})));
    Run get = idem(Map.of(), "get", "--pipeline", "lazy", "--store", store, "--output", dir.resolve("got").toString());

    assertEquals(List.of(0, 0, 0), List.of(publish.code(), run.code(), get.code()));
    assertEquals(List.of(), publish.matching(SECURITY_PROVIDERS));
    assertEquals(List.of(), run.matching(SECURITY_PROVIDERS));
    assertEquals(List.of(), get.matching(SECURITY_PROVIDERS));
    assertEquals("rows\n", Files.readString(dir.resolve("got")));
  }

  @Test
  void publish_fileStore_searchesForNoSystemLogger() throws Exception {
    Path payload = Files.writeString(dir.resolve("payload"), "rows\n");

    Run publish = idem(Map.of(), concat(new String[] {"publish", "--file", payload.toString(), "--store",
        "file:" + dir.resolve("store")}, SPEC));

    assertEquals(0, publish.code());
    assertEquals(List.of(), publish.matching(SYSTEM_LOGGER));
  }

  @Test
  void publish_payloadOverThePlainBudget_usesTheProvidersDigest() throws Exception {
    // Past the plain budget (1 MiB) the providers' SHA-256 is the faster one once compiled: loaded.
    Path payload = Files.write(dir.resolve("payload"), new byte[2 << 20]);

    Run publish = idem(Map.of(), concat(new String[] {"publish", "--file", payload.toString(), "--store",
        "file:" + dir.resolve("store")}, SPEC));

    assertEquals(0, publish.code());
    assertTrue(publish.matching(SECURITY_PROVIDERS).contains("sun.security.jca.Providers"), publish.classes()::toString);
  }

  private Run idem(Map<String, String> env, String... args) throws Exception {
    Path log = Files.createTempFile(dir, "classes", ".log");
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xlog:class+load=info:file=" + log, "-jar", System.getProperty("idem.jar")));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile())
        .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD);
    pb.environment().keySet().removeIf(k -> k.startsWith("AWS_") || k.startsWith("IDEM_"));
    pb.environment().putAll(env);
    Process p = pb.start();
    p.getOutputStream().close();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("idem " + String.join(" ", args) + " did not finish within 120 s");
    }
    List<String> loaded = new ArrayList<>();
    for (String line : Files.readAllLines(log)) {
      var m = CLASS.matcher(line);
      if (m.find()) {
        loaded.add(m.group(1));
      }
    }
    return new Run(p.exitValue(), loaded);
  }

  private static String[] concat(String[] a, String[] b) {
    String[] r = new String[a.length + b.length];
    System.arraycopy(a, 0, r, 0, a.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }
}
