package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --metrics-file} and {@code --push-metrics}: the exposition text is parsed line by line, and a
 * Pushgateway stand-in on 127.0.0.1 records the method, path and body of every push.
 */
class MetricsTest {
  @TempDir
  Path dir;

  HttpServer server;
  final LinkedBlockingQueue<String[]> pushes = new LinkedBlockingQueue<>();
  final CountDownLatch release = new CountDownLatch(1);

  @AfterEach
  void stop() {
    release.countDown();
    if (server != null) {
      server.stop(0);
    }
  }

  /** A Pushgateway stand-in answering {@code status}; {@code hang} holds every reply until the test ends. */
  String pushgateway(int status, boolean hang) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", (HttpExchange ex) -> {
      try (InputStream in = ex.getRequestBody()) {
        pushes.add(new String[] {ex.getRequestMethod(), ex.getRequestURI().getRawPath(),
            new String(in.readAllBytes(), StandardCharsets.UTF_8), ex.getRequestHeaders().getFirst("Content-Type")});
      }
      if (hang) {
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      byte[] body = (status == 200 ? "" : "pushed metrics are invalid\nsecond line").getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
      if (body.length > 0) {
        ex.getResponseBody().write(body);
      }
      ex.close();
    });
    server.start();
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/";
  }

  String[] publish(String content, String... extra) throws IOException {
    Path f = dir.resolve("result");
    Files.writeString(f, content);
    List<String> a = new ArrayList<>(List.of("publish", "--pipeline", "border-state", "--window", "60s", "--at",
        "1726000030", "--schema", "3", "--store", "file:" + dir.resolve("store"), "--writer", "w", "--file", f.toString()));
    a.addAll(List.of(extra));
    return a.toArray(new String[0]);
  }

  /** One sample of the exposition format. */
  record Sample(String name, Map<String, String> labels, String value) {}

  private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)\\{(.*)\\} (\\S+)");
  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\",?");

  /** Parses the text format strictly: every sample's family has HELP and TYPE before it, every line is known. */
  static Map<String, Sample> parse(String text) {
    assertTrue(text.endsWith("\n"), "ends with a newline: " + text);
    Set<String> typed = new HashSet<>();
    Set<String> helped = new HashSet<>();
    Map<String, Sample> samples = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      if (line.startsWith("# HELP ")) {
        helped.add(line.split(" ")[2]);
      } else if (line.startsWith("# TYPE ")) {
        String[] p = line.split(" ");
        assertEquals(4, p.length, line);
        assertTrue(Set.of("gauge", "counter", "untyped").contains(p[3]), line);
        assertTrue(typed.add(p[2]), "one TYPE per family: " + line);
      } else {
        Matcher m = SAMPLE.matcher(line);
        assertTrue(m.matches(), "not a sample line: " + line);
        assertTrue(typed.contains(m.group(1)) && helped.contains(m.group(1)), "HELP and TYPE before " + line);
        Map<String, String> labels = new LinkedHashMap<>();
        Matcher l = LABEL.matcher(m.group(2));
        int end = 0;
        while (l.find() && l.start() == end) {
          labels.put(l.group(1), l.group(2));
          end = l.end();
        }
        assertEquals(m.group(2).length(), end, "labels parse: " + line);
        Double.parseDouble(m.group(3));
        // One sample per family, but for a family split by class (idem_s3_requests): one per class.
        String id = labels.containsKey("class") ? m.group(1) + "{class=" + labels.get("class") + "}" : m.group(1);
        assertNotNull(samples.put(id, new Sample(m.group(1), labels, m.group(3))) == null ? "" : null,
            "one sample per family: " + line);
      }
    }
    return samples;
  }

  @Test
  void publish_metricsFile_writesStatusBytesPointerAndWindow() throws Exception {
    Path prom = dir.resolve("idem.prom");
    Cli.Result r = new Cli().run(publish("rows 1\n", "--metrics-file", prom.toString()));
    assertEquals(0, r.code(), r.describe());

    Map<String, Sample> m = parse(Files.readString(prom));
    assertEquals(Map.of("command", "publish", "pipeline", "border-state", "status", "CREATED"), m.get("idem_run_status").labels());
    assertEquals("1", m.get("idem_run_status").value());
    assertEquals("0", m.get("idem_run_skipped").value());
    assertEquals("0", m.get("idem_run_exit_code").value());
    assertEquals("7", m.get("idem_run_bytes").value());
    assertEquals("ADVANCED", m.get("idem_pointer_outcome").labels().get("outcome"));
    assertEquals("1725999960", m.get("idem_window_start_seconds").value());
    assertTrue(Double.parseDouble(m.get("idem_run_duration_seconds").value()) >= 0, r.describe());
    assertTrue(m.values().stream().noneMatch(s -> s.labels().containsKey("window")), "the window is no label");
    try (var files = Files.list(dir)) {
      assertEquals(List.of(), files.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList(), "no temp file left");
    }
  }

  @Test
  void publish_divergentThenSkipped_fileReplacedWithEachOutcome() throws Exception {
    Path prom = dir.resolve("idem.prom");
    new Cli().run(publish("rows 1\n"));
    Cli.Result divergent = new Cli().run(publish("rows 2!\n", "--metrics-file", prom.toString()));
    assertEquals(1, divergent.code(), divergent.describe());
    Map<String, Sample> m = parse(Files.readString(prom));
    assertEquals("DIVERGENT", m.get("idem_run_status").labels().get("status"));
    assertEquals("1", m.get("idem_run_exit_code").value());
  }

  @Test
  void run_pushMetrics_putsTheOutcomeToThePipelineGroup() throws Exception {
    String url = pushgateway(200, false);
    Path store = dir.resolve("store");
    String[] args = {"run", "--pipeline", "p", "--window", "60s", "--at", "1726000030", "--schema", "3",
        "--store", "file:" + store, "--writer", "w", "--push-metrics", url, "--", "sh", "-c", "printf abc > \"$IDEM_OUTPUT\""};
    Cli.Result first = new Cli().run(args);
    assertEquals(0, first.code(), first.describe());
    String[] push = pushes.poll(30, TimeUnit.SECONDS);
    assertNotNull(push, "pushed");
    assertEquals("PUT", push[0], "PUT replaces the group");
    assertEquals("/metrics/job/idem/pipeline/p/writer/w", push[1]);
    assertTrue(push[3].startsWith("text/plain; version=0.0.4"), push[3]);
    Map<String, Sample> m = parse(push[2]);
    assertEquals("CREATED", m.get("idem_run_status").labels().get("status"));
    assertEquals("run", m.get("idem_run_status").labels().get("command"));
    assertEquals("3", m.get("idem_run_bytes").value());

    Cli.Result again = new Cli().run(args);
    assertEquals(0, again.code(), again.describe());
    Map<String, Sample> skipped = parse(pushes.poll(30, TimeUnit.SECONDS)[2]);
    assertEquals("SKIPPED", skipped.get("idem_run_status").labels().get("status"));
    assertEquals("1", skipped.get("idem_run_skipped").value());
    assertEquals("ALREADY_CURRENT", skipped.get("idem_pointer_outcome").labels().get("outcome"));
  }

  @Test
  void run_pushMetrics_twoWritersKeepGroupsOfTheirOwn() throws Exception {
    // Two replicas of one pipeline: with the writer in the grouping key, the second PUT replaces only
    // its own group, so the Pushgateway keeps both outcomes.
    String url = pushgateway(200, false);
    Path store = dir.resolve("store");
    for (String writer : List.of("border-state-28772788-abcde", "border-state-28772788-fghij")) {
      Cli.Result r = new Cli().run("run", "--pipeline", "p", "--window", "60s", "--at", "1726000030", "--schema", "3",
          "--store", "file:" + store, "--writer", writer, "--push-metrics", url, "--", "sh", "-c",
          "printf abc > \"$IDEM_OUTPUT\"");
      assertEquals(0, r.code(), r.describe());
    }
    assertEquals("/metrics/job/idem/pipeline/p/writer/border-state-28772788-abcde", pushes.poll(30, TimeUnit.SECONDS)[1]);
    assertEquals("/metrics/job/idem/pipeline/p/writer/border-state-28772788-fghij", pushes.poll(30, TimeUnit.SECONDS)[1]);
  }

  @Test
  void run_taskFailed_reportsTaskFailedWithCmdsCode() throws Exception {
    Path prom = dir.resolve("idem.prom");
    Cli.Result r = new Cli().run("run", "--pipeline", "p", "--window", "60s", "--at", "1726000030", "--schema", "3",
        "--store", "file:" + dir.resolve("store"), "--writer", "w", "--metrics-file", prom.toString(), "--", "sh", "-c", "exit 42");
    assertEquals(42, r.code(), r.describe());
    Map<String, Sample> m = parse(Files.readString(prom));
    assertEquals("TASK_FAILED", m.get("idem_run_status").labels().get("status"));
    assertEquals("42", m.get("idem_run_exit_code").value());
    assertFalse(m.containsKey("idem_run_bytes"), "nothing published, no size");
  }

  @Test
  void publish_storeFails_reportsErrorWithItsExitCode() throws Exception {
    Path prom = dir.resolve("idem.prom");
    Cli.Result r = new Cli().opener(uri -> {
      throw new ConnectException("connection refused");
    }).run(publish("rows 1\n", "--metrics-file", prom.toString()));
    assertEquals(ExitCodes.STORE_UNAVAILABLE, r.code(), r.describe());
    Map<String, Sample> m = parse(Files.readString(prom));
    assertEquals("ERROR", m.get("idem_run_status").labels().get("status"));
    assertEquals("4", m.get("idem_run_exit_code").value());
  }

  @Test
  void publish_pushRejected_warnsAndKeepsTheExitCode() throws Exception {
    String url = pushgateway(400, false);
    Cli.Result r = new Cli().run(publish("rows 1\n", "--push-metrics", url));
    assertEquals(0, r.code(), r.describe());
    assertTrue(r.err().contains("idem: warning: metrics not pushed to " + url.replaceAll("/$", "")
        + "/metrics/job/idem/pipeline/border-state/writer/w: HTTP 400 pushed metrics are invalid (the exit code is unchanged)"),
        r.describe());
  }

  @Test
  void publish_pushgatewayDown_warnsAndKeepsTheExitCode() throws Exception {
    String url = pushgateway(200, false);
    server.stop(0);
    server = null;
    Cli.Result r = new Cli().run(publish("rows 1\n", "--push-metrics", url));
    assertEquals(0, r.code(), r.describe());
    assertTrue(r.err().contains("idem: warning: metrics not pushed to "), r.describe());
  }

  @Test
  void publish_pushgatewayNeverReplies_givesUpAtThePushTimeout() throws Exception {
    String url = pushgateway(200, true);
    Cli.Result r = new Cli().run(publish("rows 1\n", "--push-metrics", url, "--push-timeout", "1s"));
    assertEquals(0, r.code(), r.describe());
    assertTrue(r.err().contains("no complete reply within 1s (--push-timeout)"), r.describe());
  }

  /**
   * The HTTP client's request timeout and the push's own wait race; on a loaded machine the client's
   * fired first and the warning read "request timed out" instead of naming --push-timeout.
   */
  @Test
  void failed_clientTimeoutsReadLikeTheOwnDeadline() {
    Duration d = Duration.ofSeconds(1);
    assertEquals("no complete reply within 1s (--push-timeout)",
        BatchMetrics.failed(new java.net.http.HttpTimeoutException("request timed out"), d));
    assertEquals("no connection within 1s (--push-timeout)",
        BatchMetrics.failed(new java.net.http.HttpConnectTimeoutException("HTTP connect timed out"), d));
    assertTrue(BatchMetrics.failed(new java.net.ConnectException("Connection refused"), d).contains("Connection refused"));
  }

  @Test
  void publish_metricsFileDirectoryMissing_usageErrorAndNothingWritten() throws Exception {
    Cli.Result r = new Cli().run(publish("rows 1\n", "--metrics-file", dir.resolve("no/such/idem.prom").toString()));
    assertEquals(ExitCodes.USAGE, r.code(), r.describe());
    assertEquals(1, r.errLines().length, r.describe());
    assertTrue(r.err().contains("--metrics-file '" + dir.resolve("no/such/idem.prom") + "': directory "), r.describe());
    assertFalse(Files.exists(dir.resolve("store")), "nothing written");
  }

  @Test
  void publish_pushMetricsNotHttp_usageErrorAndNothingWritten() throws Exception {
    Cli.Result r = new Cli().run(publish("rows 1\n", "--push-metrics", "ftp://gateway:9091"));
    assertEquals(ExitCodes.USAGE, r.code(), r.describe());
    assertTrue(r.err().contains("--push-metrics 'ftp://gateway:9091': not an http:// or https:// URL with a host"), r.describe());
    assertFalse(Files.exists(dir.resolve("store")), "nothing written");
  }

  @Test
  void pushUri_trailingSlashesAndPathPrefix_keepTheGatewayPath() {
    assertEquals("http://gw:9091/metrics/job/idem/pipeline/p/writer/w",
        MetricsOptions.pushUri("http://gw:9091///", "p", "w").toString());
    assertEquals("https://gw/prefix/metrics/job/idem/pipeline/p/writer/host:42",
        MetricsOptions.pushUri("https://gw/prefix", "p", "host:42").toString());
  }

  @Test
  void escape_quotesBackslashesNewlines() {
    assertEquals("a\\\\b\\\"c\\nd", BatchMetrics.escape("a\\b\"c\nd"));
  }
}
