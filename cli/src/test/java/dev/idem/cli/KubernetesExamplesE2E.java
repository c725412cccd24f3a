package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpServer;
import dev.idem.cli.ExamplesTest.Container;
import dev.idem.cli.ImageChrootE2E.Run;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The containers of examples/kubernetes run as Kubernetes would run them, with the image the build
 * makes, in its root ({@link ImageChrootE2E}'s chroot): each container's command and args as the
 * manifest writes them, {@code $(VAR)} references expanded from its env as the kubelet expands them, the
 * downward API's values given as a pod would get them. Only the store (a file store in the root for
 * {@code s3://example-results/idem}) and the Pushgateway (a stand-in on the host's loopback that records
 * each push) are this test's.
 *
 * <p>The idem image's containers (the gate, the acknowledgement) run its entrypoint with their args. The
 * CronJob's task image is the idem image plus what the manifest says a task image adds: a shell
 * ({@code /bin/sh}, the host's dash, whose only library the image's libc6 provides), {@code /opt/idem/bin}
 * on PATH, and the task ({@code /app/build-report}, a script writing one line to {@code $IDEM_OUTPUT}).
 * The gate's read-only service account is a store mounted read-only for its runs.
 */
class KubernetesExamplesE2E {
  static final String MANIFEST_STORE = "s3://example-results/idem";
  static final String MANIFEST_PUSHGATEWAY = "http://pushgateway.monitoring.svc:9091";
  static final Pattern DIVERGENT = Pattern.compile("^DIVERGENT (\\S+) ", Pattern.MULTILINE);

  static HttpServer pushgateway;
  static final LinkedBlockingQueue<String[]> pushes = new LinkedBlockingQueue<>();

  @BeforeAll
  static void setUp() throws Exception {
    ImageChrootE2E.unpack();
    if (ImageChrootE2E.skip != null) {
      return;
    }
    // The task image: a shell and the task, beside the idem image's /opt/idem.
    Path root = ImageChrootE2E.root;
    Files.createDirectories(root.resolve("bin"));
    Files.copy(Path.of("/bin/dash"), root.resolve("bin/sh"));
    Files.setPosixFilePermissions(root.resolve("bin/sh"), PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.createDirectories(root.resolve("app"));
    Files.writeString(root.resolve("app/build-report"),
        "#!/bin/sh\nprintf 'crossings of the window from %s\\n' \"$IDEM_WINDOW_START\" > \"$IDEM_OUTPUT\"\n");
    Files.setPosixFilePermissions(root.resolve("app/build-report"), PosixFilePermissions.fromString("rwxr-xr-x"));

    pushgateway = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    pushgateway.createContext("/", ex -> {
      byte[] body = ex.getRequestBody().readAllBytes();
      pushes.add(new String[] {ex.getRequestMethod(), ex.getRequestURI().getRawPath(), new String(body, StandardCharsets.UTF_8)});
      ex.sendResponseHeaders(200, -1);
      ex.close();
    });
    pushgateway.start();
  }

  @AfterAll
  static void tearDown() throws IOException {
    if (pushgateway != null) {
      pushgateway.stop(0);
    }
    ImageChrootE2E.removeRoot();
  }

  @BeforeEach
  void runnable() {
    assumeTrue(ImageChrootE2E.skip == null, ImageChrootE2E.skip);
  }

  static Container container(String file) throws IOException {
    List<Container> all = ExamplesTest.containers(ExamplesTest.EXAMPLES.resolve(file));
    assertEquals(1, all.size(), file);
    return all.get(0);
  }

  /**
   * Kubernetes' expansion of command and args: {@code $(NAME)} becomes the value of env NAME, {@code $$}
   * a single {@code $}, and a reference to no env variable stays as written (so {@code $((m * 60))}
   * reaches the shell).
   */
  static String expand(String s, Map<String, String> env) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c != '$' || i + 1 == s.length()) {
        b.append(c);
      } else if (s.charAt(i + 1) == '$') {
        b.append('$');
        i++;
      } else if (s.charAt(i + 1) == '(' && s.indexOf(')', i + 2) > 0) {
        int close = s.indexOf(')', i + 2);
        String name = s.substring(i + 2, close);
        b.append(env.containsKey(name) ? env.get(name) : "$(" + name + ")");
        i = close;
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  /**
   * Runs a container: the env as the manifest gives it ({@code fieldRefs} answers its downward-API
   * values, {@code overrides} replaces what an operator fills in), the manifest's store and
   * Pushgateway replaced by this test's, command and args expanded.
   */
  static Run runContainer(Container c, String store, Map<String, String> fieldRefs, Map<String, String> overrides,
      List<String> readOnly) throws Exception {
    Map<String, String> env = new LinkedHashMap<>(c.env());
    c.fieldRefs().forEach((name, path) -> {
      assertTrue(fieldRefs.containsKey(path), c.name() + " needs " + path);
      env.put(name, fieldRefs.get(path));
    });
    env.putAll(overrides);
    boolean idemImage = ExamplesTest.idemImage(c);
    // The image's PATH; a task image built as cronjob.yaml says puts /opt/idem/bin before it.
    String path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    env.put("PATH", idemImage ? path : "/opt/idem/bin:" + path);
    List<String> argv = new ArrayList<>(idemImage ? ImageChrootE2E.entrypoint : List.of());
    assertEquals(idemImage, c.command().isEmpty(), c.name() + ": the idem image runs its entrypoint");
    for (String item : c.command()) {
      argv.add(expand(item, env));
    }
    String pushgatewayUrl = "http://127.0.0.1:" + pushgateway.getAddress().getPort();
    for (String item : c.args()) {
      argv.add(expand(item.replace(MANIFEST_STORE, store).replace(MANIFEST_PUSHGATEWAY, pushgatewayUrl), env));
    }
    return ImageChrootE2E.inRoot(env, readOnly, argv);
  }

  /** The fields a pod of a CronJob's Job gets from the downward API. */
  static Map<String, String> pod(String job, String suffix) {
    return Map.of("metadata.name", job + "-" + suffix, "metadata.labels['batch.kubernetes.io/job-name']", job);
  }

  /** The Job the CronJob controller makes for a scheduled time: NAME-MINUTES since the epoch. */
  static String job(Instant scheduled) {
    return "border-state-" + scheduled.getEpochSecond() / 60;
  }

  @Test
  void cronjob_everyPodOfAJobComputesTheScheduledWindowAndPushesAGroupOfItsOwn() throws Exception {
    Container task = container("cronjob.yaml");
    String store = "file:/tmp/k8s-cron";
    // Scheduled for 21:05 on 10 September 2024: the window 20:00 to 21:00, whenever a pod runs.
    String job = job(Instant.parse("2024-09-10T21:05:00Z"));
    String window = "border-state/" + Instant.parse("2024-09-10T20:00:00Z").getEpochSecond() + "/";
    pushes.clear();

    Run first = runContainer(task, store, pod(job, "x7k2p"), Map.of(), List.of());
    assertEquals(0, first.code(), first.describe());
    assertTrue(first.out().startsWith("CREATED " + window), first.describe());
    // The retry of the Job (its first pod lost after publishing) runs years later and still finds it.
    Run retry = runContainer(task, store, pod(job, "m4q9z"), Map.of(), List.of());
    assertEquals(0, retry.code(), retry.describe());
    assertTrue(retry.out().startsWith("SKIPPED " + window), retry.describe());

    String[] one = pushes.poll(30, TimeUnit.SECONDS);
    String[] two = pushes.poll(30, TimeUnit.SECONDS);
    assertNotNull(one, "the first pod pushed");
    assertNotNull(two, "the retry pushed");
    assertEquals("PUT", one[0]);
    assertEquals("/metrics/job/idem/pipeline/border-state/writer/" + job + "-x7k2p", one[1]);
    assertTrue(one[2].contains("idem_run_status{command=\"run\",pipeline=\"border-state\",status=\"CREATED\"} 1"), one[2]);
    assertEquals("/metrics/job/idem/pipeline/border-state/writer/" + job + "-m4q9z", two[1]);
    assertTrue(two[2].contains("status=\"SKIPPED\"} 1"), two[2]);
  }

  @Test
  void gate_passesAFirstRolloutReadsOnlyAndPassesADivergenceOnceAcknowledged() throws Exception {
    Container gate = container("gate-job.yaml");
    Container ack = container("ack-job.yaml");
    Container task = container("cronjob.yaml");
    String store = "file:/tmp/k8s-gate";
    List<String> readOnly = List.of("/tmp/k8s-gate");
    Map<String, String> noPod = Map.of();

    // The store exists (another pipeline published) but border-state has published nothing yet.
    Files.writeString(ImageChrootE2E.root.resolve("tmp/orders.txt"), "orders\n");
    Run orders = ImageChrootE2E.idem("publish", "--store", store, "--pipeline", "orders", "--window", "1h",
        "--at", "2024-09-10T21:05:00Z", "--schema", "1", "--writer", "orders-1", "--file", "/tmp/orders.txt");
    assertEquals(0, orders.code(), orders.describe());
    Run first = runContainer(gate, store, noPod, Map.of(), readOnly);
    assertEquals(0, first.code(), "first rollout passes with --allow-empty\n" + first.describe());
    Container strict = new Container(gate.file(), gate.name(), gate.image(), gate.command(),
        gate.args().stream().filter(a -> !a.equals("--allow-empty")).toList(), gate.env(), gate.fieldRefs());
    Run without = runContainer(strict, store, noPod, Map.of(), readOnly);
    assertEquals(9, without.code(), "without --allow-empty nothing examined fails\n" + without.describe());

    // The CronJob's run of the last hour, then an old build's replica publishing other bytes there.
    long hour = Instant.now().getEpochSecond() / 3600 * 3600;
    Instant scheduled = Instant.ofEpochSecond(hour - 3600 + 300);
    Run run = runContainer(task, store, pod(job(scheduled), "a1b2c"), Map.of(), List.of());
    assertEquals(0, run.code(), run.describe());
    Run clean = runContainer(gate, store, noPod, Map.of(), readOnly);
    assertEquals(0, clean.code(), clean.describe());
    assertTrue(clean.out().contains("divergent_keys=0"), clean.describe());

    Files.writeString(ImageChrootE2E.root.resolve("tmp/old-build.txt"), "crossings, keyed without the snapshot\n");
    Run old = ImageChrootE2E.idem("publish", "--store", store, "--pipeline", "border-state", "--window", "1h",
        "--at", scheduled.toString(), "--schema", "3", "--input", "source=s3://example-raw/border-crossings",
        "--writer", "border-state-old-build", "--file", "/tmp/old-build.txt");
    assertEquals(1, old.code(), old.describe());
    Run blocked = runContainer(gate, store, noPod, Map.of(), readOnly);
    assertEquals(1, blocked.code(), "a divergence fails the gate\n" + blocked.describe());
    Matcher m = DIVERGENT.matcher(blocked.out());
    assertTrue(m.find(), blocked.describe());
    String key = m.group(1);

    // The gate's account cannot acknowledge (nothing is written); the writers' account can.
    Map<String, String> filledIn = Map.of("KEY", key);
    Run refused = runContainer(ack, store, noPod, filledIn, readOnly);
    assertNotEquals(0, refused.code(), refused.describe());
    Run acked = runContainer(ack, store, noPod, filledIn, List.of());
    assertEquals(0, acked.code(), acked.describe());
    assertTrue(acked.out().startsWith("ACKNOWLEDGED " + key + " ") && acked.out().contains(" by ops-alice "),
        acked.describe());

    Run unblocked = runContainer(gate, store, noPod, Map.of(), readOnly);
    assertEquals(0, unblocked.code(), "an acknowledged divergence passes\n" + unblocked.describe());
    assertTrue(unblocked.err().contains("ACKNOWLEDGED " + key + " "), unblocked.describe());
    assertTrue(unblocked.err().contains("INC-42: build 44 adds the snapshot input to the key"), unblocked.describe());
  }
}
