package dev.idem.cli;

import dev.idem.core.Idem;
import dev.idem.core.RunSpec;
import dev.idem.core.proof.ProvenStore;
import dev.idem.core.publish.PublishReport;
import dev.idem.core.publish.Publisher;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code idem publish}: publish a result that already exists, create-only, then advance the pointer. */
@Command(name = "publish", mixinStandardHelpOptions = true, versionProvider = IdemCommand.Version.class,
    description = {
        "Publish an existing file (or stdin) under a spec's key, create-only, and advance the pointer.",
        "An empty file (0 bytes) is refused with exit 2 unless --allow-empty, and so is a window that has not "
            + "closed yet (ending more than --max-clock-skew after now); nothing is written.",
        "Prints CREATED, IDENTICAL (same bytes were there) or DIVERGENT (different bytes were there: "
            + "they stay, this attempt is recorded as evidence; exit 1, also when the store could not record it "
            + "or keep its bytes: record=NOT_RECORDED or record=BYTES_NOT_KEPT, and a line on stderr says why).",
        "pointer=SAME_POSITION_OTHER_KEY means the pointer already names another key for this window and "
            + "schema (keying drift: a build declared other inputs without bumping --schema); the publish "
            + "stands, exit 0, with a KEYING DRIFT line on stderr.",
        "A publish still running after a second reports on stderr every 5 s: on S3 its phase (hashing: bytes "
            + "read; uploading: bytes really sent of the total and the rate; skipping: the key holds an object, "
            + "nothing more is sent), on a filesystem the bytes written, or that the store is being probed before "
            + "its first write (--quiet silences it; stdout and --json are not touched).",
        ""
    })
final class PublishCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--file", paramLabel = "F", required = true,
      description = "The result to publish; - reads stdin: a file redirected to it (< F) is read in place, a pipe is "
          + "spooled first to an owner-only temporary file in TMPDIR (a store reads a payload twice: hash, then "
          + "upload), deleted when idem ends; a full TMPDIR is named.")
  String file;

  @Option(names = "--allow-empty", description = "Publish the file even when it is empty (0 bytes).")
  boolean allowEmpty;

  @Mixin
  SpecOptions specOptions;

  @Mixin
  ClockSkewOption skew;

  @Mixin
  StoreOption store;

  @Mixin
  WriterOption writer;

  @Mixin
  OutputOptions output;

  @Mixin
  PointerTimeoutOption pointerTimeout;

  @Mixin
  MetricsOptions metrics;

  @Override
  public Integer call() throws IOException {
    CliContext ctx = IdemCommand.context(spec);
    RunSpec runSpec = specOptions.toSpec(ctx.clock());
    String writerId = writer.resolve(ctx);
    Path source = "-".equals(file) ? null : readableFile(file);
    // Checked before the store is opened or stdin is spooled: a future window writes nothing.
    skew.guard(ctx).requireClosed(runSpec.window(), "publish");
    if (source != null) {
      requireResult(source, "--file '" + file + "'");
    }
    Path spool = null;
    BatchMetrics outcome = metrics.start(ctx, "publish", runSpec, writerId, spec.commandLine().getErr());
    try (outcome; ObjectStore st = store.open(ctx)) {
      outcome.store(st);
      if (source == null) {
        source = ctx.stdinFile();
        if (source == null) {
          // A store may read the payload twice (hash, then upload): a pipe can be read only once.
          spool = TempPaths.createFile(null, "idem-publish-", ".stdin");
          // A slow producer upstream is not the store's wait: --max-time does not run while stdin is read.
          store.deadline().pause();
          try (InputStream in = ctx.stdin()) {
            TempPaths.copyInto(in, spool);
          } finally {
            store.deadline().resume();
          }
          source = spool;
        }
        requireResult(source, "stdin");
      }
      PublishReport report;
      CountingPayload payload = new CountingPayload(Payload.ofFile(source));
      long total = Files.size(source);
      store.allowFor(total);
      String publishing = "publishing " + runSpec.outputKey() + " to " + st.describe() + ": ";
      Progress progress = Progress.start(spec.commandLine().getErr(), !output.quiet, Progress.onTerminal(),
          ctx.progressAfter(), 5000, elapsed -> publishing + (st instanceof ProvenStore proven && proven.probing()
              ? "probing the store's guarantees before its first write (" + elapsed / 1000 + "s)"
              : payload.status(total, elapsed)));
      try {
        Publisher.Builder publisher = Idem.publisher(st).writer(writerId).clock(ctx.clock())
            .pointer(pointerTimeout.advancer(st, store.deadline())).maxClockSkew(skew.maxClockSkew);
        if (allowEmpty) {
          publisher.allowEmptyResults();
        }
        report = publisher.build().publish(runSpec, payload);
      } finally {
        progress.close();
      }
      Reports.print(spec.commandLine().getOut(), spec.commandLine().getErr(), output, runSpec, report, writerId,
          pointerTimeout.ranOut(store.deadline()), st);
      outcome.published(report, Reports.exitCode(report));
      return Reports.exitCode(report);
    } catch (IOException | RuntimeException e) {
      outcome.failed(ExitCodes.codeOf(e));
      throw e;
    } finally {
      if (spool != null) {
        Files.deleteIfExists(spool);
      }
    }
  }

  /** An empty file is no result (P6) unless --allow-empty says it is. */
  private void requireResult(Path source, String what) throws IOException {
    if (!allowEmpty && Files.size(source) == 0) {
      throw new UsageException(what + " is empty (0 bytes): nothing published (pass --allow-empty if an empty "
          + "result is a result)");
    }
  }

  /** Checked before the store is opened, so a typo costs nothing and writes nothing. */
  static Path readableFile(String name) {
    Path p;
    try {
      p = Path.of(name);
    } catch (InvalidPathException e) {
      throw new UsageException("--file '" + name + "': " + e.getReason());
    }
    if (!Files.exists(p)) {
      throw new UsageException("--file '" + name + "': no such file");
    }
    if (!Files.isRegularFile(p)) {
      throw new UsageException("--file '" + name + "': not a regular file");
    }
    if (!Files.isReadable(p)) {
      throw new UsageException("--file '" + name + "': permission denied");
    }
    return p;
  }
}
