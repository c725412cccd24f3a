package dev.idem.cli;

import dev.idem.core.Names;
import dev.idem.core.Sha256;
import dev.idem.core.scan.LatestOfSchema;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code idem get}: fetch one generation, verified. The bytes go to a temporary file first and are
 * checked against the SHA-256 and size the pointer (or the store's metadata) names; only verified
 * bytes reach the output, so a mismatch leaves no partial file and writes nothing to stdout.
 */
@Command(name = "get", mixinStandardHelpOptions = true, versionProvider = IdemCommand.Version.class,
    description = {
        "Write a published object to stdout or a file, verifying its SHA-256 and size.",
        "By default (or with --latest) follows the pipeline's pointer; with --latest-of-schema N the newest "
            + "generation of schema N at or behind it; with --window/--schema (and the same --input values as the "
            + "writer) fetches that spec's key.",
        "To stdout, the object is spooled to a temporary file in TMPDIR and verified before its first byte is "
            + "written (refused, exit 4, when TMPDIR has less room than the object; the line names it); -o FILE "
            + "fetches into a temporary file beside FILE and renames it into place.",
        ""
    })
final class GetCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--pipeline", paramLabel = "P", required = true, description = "Pipeline name.")
  String pipeline;

  @ArgGroup(exclusive = true, multiplicity = "0..1")
  Target target;

  /** The pointer, the newest generation of one schema, or one spec's key. */
  static final class Target {
    @Option(names = "--latest", description = "Follow the pipeline's pointer (the default).")
    boolean latest;

    @Option(names = "--latest-of-schema", paramLabel = "N",
        description = "The newest generation of schema version N at or behind the pointer: what a reader of that "
            + "format follows while a deploy moves the pointer between schemas (ordered by window, then schema).")
    Integer latestOfSchema;

    @ArgGroup(exclusive = false, multiplicity = "1", heading = "Instead of --latest, a spec:%n")
    WindowOptions window;
  }

  @Option(names = {"-o", "--output"}, paramLabel = "F", defaultValue = "-",
      description = "Where to write the object; - is stdout. A file is replaced atomically. Default: -")
  String outputFile;

  @Mixin
  StoreOption store;

  @Mixin
  OutputOptions output;

  @Override
  public Integer call() throws IOException {
    CliContext ctx = IdemCommand.context(spec);
    try {
      Names.requirePipeline(pipeline);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    boolean toStdout = "-".equals(outputFile);
    if (toStdout && output.json) {
      throw new UsageException("--json needs --output FILE: stdout carries the object");
    }
    Path dest = toStdout ? null : writableTarget(outputFile);
    String key;
    String sha;
    long size;
    Json requests;
    try (ObjectStore st = store.open(ctx)) {
      if (target != null && target.latestOfSchema != null) {
        int schema = target.latestOfSchema;
        key = LatestOfSchema.find(st, pipeline, schema, 0).orElseThrow(() -> new NotFoundException(
            "no generation of schema " + schema + " of pipeline " + pipeline + " at or behind its pointer in "
                + st.describe() + Pipelines.didYouMean(st, pipeline)));
        ObjectInfo info = st.stat(key).orElseThrow(() -> new NotFoundException("no object at " + key + " in " + st.describe()));
        sha = info.sha256();
        size = info.size();
      } else if (target != null && target.window != null) {
        key = target.window.toSpec(pipeline, ctx.clock()).outputKey().toString();
        ObjectInfo info = st.stat(key).orElseThrow(() -> new NotFoundException("no object at " + key + " in " + st.describe()));
        sha = info.sha256();
        size = info.size();
      } else {
        Pointer p = st.readPointer(pipeline).map(PointerState::pointer)
            .orElseThrow(() -> new NotFoundException("no pointer for pipeline " + pipeline + " in " + st.describe()
                + Pipelines.didYouMean(st, pipeline)));
        key = p.key();
        sha = p.sha256();
        size = p.size();
      }
      store.allowFor(size);
      Optional<InputStream> body = st.open(key);
      if (body.isEmpty()) {
        throw new NotFoundException("the pointer names " + key + " but no object is there in " + st.describe());
      }
      if (dest == null) {
        TempPaths.requireRoom(size, "get spools an object for stdout there to verify it before writing a byte of it; "
            + "-o FILE writes beside FILE instead, or set TMPDIR to a directory with room");
      }
      Path tmp = dest == null
          ? TempPaths.createFile(null, "idem-get-", ".tmp")
          : TempPaths.createFile(dest.toAbsolutePath().getParent(), "." + dest.getFileName() + ".", ".idem-get");
      String fetching = key;
      Progress progress = Progress.start(spec.commandLine().getErr(), !output.quiet, ctx.progressAfter(), 5000,
          () -> "fetching " + fetching + " (" + size + " bytes) from " + st.describe());
      try {
        fetchVerified(body.get(), tmp, dest == null, key, sha, size);
        if (dest == null) {
          OutputStream out = ctx.stdout();
          Files.copy(tmp, out);
          out.flush();
        } else {
          moveIntoPlace(tmp, dest);
        }
      } finally {
        progress.close();
        Files.deleteIfExists(tmp);
      }
      requests = StoreRequests.json(st);
    }
    report(key, sha, size, toStdout, requests);
    return ExitCodes.OK;
  }

  /**
   * Fetches into {@code tmp} and checks the bytes. A spool for stdout stays owner-only; a file that
   * becomes the user's {@code --output} is made anew with the mode any new file gets (the umask), as
   * {@code cp} would.
   */
  private static void fetchVerified(InputStream body, Path tmp, boolean spool, String key, String sha, long size)
      throws IOException {
    MessageDigest md = Sha256.newDigest(size);
    long copied;
    try (InputStream in = new DigestInputStream(body, md)) {
      copied = spool ? TempPaths.copyInto(in, tmp) : Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
    }
    String actual = Sha256.hex(md.digest());
    if (!actual.equals(sha) || copied != size) {
      throw new IOException("verification failed for " + key + ": expected sha256 " + sha + " size " + size
          + ", read sha256 " + actual + " size " + copied + "; nothing written");
    }
  }

  private static void moveIntoPlace(Path tmp, Path dest) throws IOException {
    try {
      Files.move(tmp, dest, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      // The temp file is created beside dest, so this means a filesystem without rename(2): say so.
      throw new IOException("cannot replace " + dest + " atomically on this filesystem", e);
    }
  }

  private void report(String key, String sha, long size, boolean toStdout, Json requests) {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (output.json) {
      out.println(Json.object().put("key", key).put("sha256", sha).put("size", size)
          .put("output", outputFile).put("verified", true).putIfPresent("requests", requests));
    } else if (!output.quiet) {
      (toStdout ? err : out).println("wrote " + key + " size=" + size + " sha256=" + sha + " (verified) to "
          + (toStdout ? "stdout" : outputFile));
    }
  }

  /** Checked before the store is opened: a bad path costs nothing and writes nothing. */
  static Path writableTarget(String name) {
    Path p;
    try {
      p = Path.of(name);
    } catch (InvalidPathException e) {
      throw new UsageException("--output '" + name + "': " + e.getReason());
    }
    Path parent = p.toAbsolutePath().getParent();
    if (Files.isDirectory(p)) {
      throw new UsageException("--output '" + name + "' is a directory");
    }
    if (parent == null || !Files.isDirectory(parent)) {
      throw new UsageException("--output '" + name + "': directory " + parent + " does not exist");
    }
    if (!Files.isWritable(parent)) {
      throw new UsageException("--output '" + name + "': directory " + parent + " is not writable");
    }
    return p;
  }
}
