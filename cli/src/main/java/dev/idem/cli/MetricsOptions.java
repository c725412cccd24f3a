package dev.idem.cli;

import dev.idem.core.RunSpec;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * {@code --metrics-file}, {@code --push-metrics} and {@code --push-timeout}, shared by run, publish and
 * scan. Exists so that each reports its outcome to Prometheus the same way ({@link BatchMetrics}, {@link
 * ScanMetrics}). The
 * flags are checked before anything runs: a metrics path whose directory does not exist, or a push URL
 * that is not http(s), is a usage error (exit 2) with nothing written, not a warning after the work.
 */
final class MetricsOptions {
  @Option(names = "--metrics-file", paramLabel = "F",
      description = "When the command ends, write its outcome to F in the Prometheus text format (replaced "
          + "atomically; name it *.prom in node-exporter's textfile directory). A failure to write only warns: "
          + "the exit code is unchanged.")
  String metricsFile;

  @Option(names = "--push-metrics", paramLabel = "URL",
      description = "When the command ends, PUT its outcome to the Pushgateway at URL, under "
          + "URL/metrics/job/idem/pipeline/PIPELINE/writer/WRITER (one group per writer: replicas do not replace "
          + "each other's outcome); a scan under URL/metrics/job/idem/command/scan/prefix@base64/PREFIX. A failure "
          + "to push only warns: the exit code is unchanged.")
  String pushUrl;

  @Option(names = "--push-timeout", paramLabel = "D", converter = Durations.class, defaultValue = "5s",
      description = "Give up the push after D in all (connect, reply). Default: ${DEFAULT-VALUE}")
  Duration pushTimeout;

  /** Checks the flags and starts the clock; the result reports on {@link BatchMetrics#close()}. */
  BatchMetrics start(CliContext ctx, String command, RunSpec spec, String writer, PrintWriter err) {
    Path file = metricsFile == null ? null : metricsPath(metricsFile);
    URI push = pushUrl == null ? null : pushUri(pushUrl, spec.pipeline(), writer);
    return new BatchMetrics(command, spec, file, push, pushTimeout, ctx.clock(), err);
  }

  /**
   * Checks the flags for a scan of {@code prefix} in {@code store} and starts its clock; the scan's
   * Pushgateway group is {@code job/idem/command/scan/prefix@base64/PREFIX}, so scans of other prefixes
   * keep groups of their own.
   */
  ScanMetrics startScan(CliContext ctx, String store, String prefix, PrintWriter err) {
    Path file = metricsFile == null ? null : metricsPath(metricsFile);
    URI push = pushUrl == null ? null : URI.create(gatewayBase(pushUrl) + "/metrics/job/idem/command/scan/prefix@base64/"
        + (prefix.isEmpty() ? "=" : java.util.Base64.getUrlEncoder().encodeToString(
            prefix.getBytes(java.nio.charset.StandardCharsets.UTF_8))));
    return new ScanMetrics(store, prefix, file, push, pushTimeout, ctx.clock(), err);
  }

  static Path metricsPath(String name) {
    Path p;
    try {
      p = Path.of(name).toAbsolutePath();
    } catch (InvalidPathException e) {
      throw new UsageException("--metrics-file '" + name + "': " + e.getReason());
    }
    if (Files.isDirectory(p)) {
      throw new UsageException("--metrics-file '" + name + "': is a directory");
    }
    if (p.getParent() == null || !Files.isDirectory(p.getParent())) {
      throw new UsageException("--metrics-file '" + name + "': directory " + p.getParent() + " does not exist");
    }
    return p;
  }

  /**
   * The Pushgateway path with job, pipeline and writer as grouping labels. Both names are one safe path
   * segment as they are ({@code [a-z0-9._-]} and {@code [A-Za-z0-9._:@+-]}: a value's {@code @} means
   * nothing to the Pushgateway, which reads {@code @base64} only after a label's name).
   */
  static URI pushUri(String url, String pipeline, String writer) {
    return URI.create(gatewayBase(url) + "/metrics/job/idem/pipeline/" + pipeline + "/writer/" + writer);
  }

  /** The Pushgateway's base URL, checked, without trailing slashes; a bad URL is a usage error. */
  static String gatewayBase(String url) {
    URI base;
    try {
      base = new URI(url);
    } catch (URISyntaxException e) {
      throw new UsageException("--push-metrics '" + url + "': " + e.getReason());
    }
    if (!("http".equals(base.getScheme()) || "https".equals(base.getScheme())) || base.getHost() == null) {
      throw new UsageException("--push-metrics '" + url + "': not an http:// or https:// URL with a host");
    }
    if (base.getQuery() != null || base.getFragment() != null) {
      throw new UsageException("--push-metrics '" + url + "': a query or fragment has no place in a Pushgateway URL");
    }
    String path = base.getRawPath() == null ? "" : base.getRawPath();
    while (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    return base.getScheme() + "://" + base.getRawAuthority() + path;
  }
}
