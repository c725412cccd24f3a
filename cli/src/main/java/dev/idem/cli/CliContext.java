package dev.idem.cli;

import dev.idem.core.store.ObjectStore;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.function.LongSupplier;

/**
 * What a command needs from the world besides its arguments: raw stdin/stdout for payload bytes
 * (picocli's writers carry text), the environment (with the configuration file under it), the clock,
 * the monotonic ticker that deadlines read, how store URIs become stores, and how long work runs before it reports progress on stderr. {@link Main} builds the real one; tests build
 * their own, so no command touches {@code System.*} and no test's stderr depends on how loaded the
 * machine is.
 */
public final class CliContext {

  /** Opens the store a URI names. */
  @FunctionalInterface
  public interface StoreOpener {
    ObjectStore open(String uri) throws IOException;
  }

  private final InputStream stdin;
  /** Stdin as a file publish can read directly, or null; the system's, computed on first use. */
  private final Supplier<Path> stdinFile;
  private final OutputStream stdout;
  private final Settings settings;
  private final Clock clock;
  private final StoreOpener opener;
  private final Duration progressAfter;
  private final LongSupplier ticker;

  /** The first progress report {@link #PROGRESS_AFTER} after long work starts. */
  public CliContext(InputStream stdin, OutputStream stdout, Map<String, String> env, Clock clock, StoreOpener opener) {
    this(stdin, () -> null, stdout, env, clock, opener, PROGRESS_AFTER, System::nanoTime);
  }

  private CliContext(InputStream stdin, Supplier<Path> stdinFile, OutputStream stdout, Map<String, String> env,
      Clock clock, StoreOpener opener, Duration progressAfter, LongSupplier ticker) {
    this(stdin, stdinFile, stdout, Settings.load(env), clock, opener, progressAfter, ticker);
  }

  private CliContext(InputStream stdin, Supplier<Path> stdinFile, OutputStream stdout, Settings settings, Clock clock,
      StoreOpener opener, Duration progressAfter, LongSupplier ticker) {
    this.stdin = Objects.requireNonNull(stdin, "stdin");
    this.stdinFile = stdinFile;
    this.stdout = Objects.requireNonNull(stdout, "stdout");
    this.settings = settings;
    this.clock = Objects.requireNonNull(clock, "clock");
    this.opener = opener;
    this.progressAfter = Objects.requireNonNull(progressAfter, "progressAfter");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
  }

  /** How long a command works before its first progress line: quick commands print none. */
  public static final Duration PROGRESS_AFTER = Duration.ofSeconds(1);

  /** This context with the first progress report {@code after} the work starts (positive). */
  public CliContext withProgressAfter(Duration after) {
    if (after.isNegative() || after.isZero()) {
      throw new IllegalArgumentException("progress delay must be positive, was " + after);
    }
    return new CliContext(stdin, stdinFile, stdout, settings, clock, opener, after, ticker);
  }

  /**
   * This context with deadlines ({@code --max-time}) read from {@code ticker} (nanoseconds, as {@link
   * System#nanoTime}), so a test can let time pass where it happens without waiting for it.
   */
  public CliContext withTicker(LongSupplier ticker) {
    return new CliContext(stdin, stdinFile, stdout, settings, clock, opener, progressAfter, ticker);
  }

  /** The real process: System streams, the real environment, the UTC clock, {@link StoreUris}. */
  public static CliContext system() {
    Map<String, String> env = System.getenv();
    return new CliContext(System.in, CliContext::regularStdin, System.out, env, Clock.systemUTC(), null, PROGRESS_AFTER,
        System::nanoTime);
  }

  public InputStream stdin() {
    return stdin;
  }

  /**
   * Stdin as a path, when it is a regular file not read from yet ({@code idem publish --file - < F}): a
   * store may then read it as often as it needs, and nothing is spooled. Null otherwise (a pipe, a
   * terminal, a file an earlier reader is part-way through, a test's stdin).
   */
  public Path stdinFile() {
    return stdinFile.get();
  }

  private static Path regularStdin() {
    try {
      Path fd = Path.of("/proc/self/fd/0");
      if (!Files.isRegularFile(fd)) {
        return null;
      }
      // Not closed: that would close fd 0. Reopening the file by its path reads it from its start.
      @SuppressWarnings("resource")
      long position = new FileInputStream(FileDescriptor.in).getChannel().position();
      return position == 0 ? fd.toRealPath() : null;
    } catch (IOException | RuntimeException e) {
      return null; // no /proc, a deleted file: spooled as any stdin
    }
  }

  public OutputStream stdout() {
    return stdout;
  }

  /** The environment, with the configuration file's settings under it ({@link Settings}). */
  public Map<String, String> env() {
    return settings.env();
  }

  /** The environment and the configuration file, and where each setting came from. */
  Settings settings() {
    return settings;
  }

  public String env(String name) {
    String v = settings.env().get(name);
    return v == null || v.isEmpty() ? null : v;
  }

  public Clock clock() {
    return clock;
  }

  /** The monotonic ticker the command's deadline reads (nanoseconds, as {@link System#nanoTime}). */
  public LongSupplier ticker() {
    return ticker;
  }

  /** How long work runs before {@link Progress} first reports it. */
  public Duration progressAfter() {
    return progressAfter;
  }

  /**
   * Opens the store named by {@code uri}, or by {@code IDEM_STORE}, or the default {@code
   * file:.idem}, with the default waits (a deadline of {@link StoreWaits#MAX_TIME} from now).
   */
  public ObjectStore openStore(String uri) throws IOException {
    return openStore(uri, Map.of(), StoreWaits.defaults());
  }

  /**
   * As {@link #openStore(String)}, with {@code flags} (settings given as flags) over the environment's
   * and the configuration file's variables of the same name, waiting on the store as {@code waits} says.
   */
  ObjectStore openStore(String uri, Map<String, String> flags, StoreWaits waits) throws IOException {
    String chosen = StoreUris.choose(uri, env());
    if (opener != null) {
      return opener.open(chosen);
    }
    Map<String, String> merged = env();
    if (!flags.isEmpty()) {
      merged = new java.util.HashMap<>(merged);
      merged.putAll(flags);
    }
    return StoreUris.open(chosen, merged, waits);
  }

  /** As {@link #openStore(String)}, waiting on the store as {@code waits} says. */
  ObjectStore openStore(String uri, StoreWaits waits) throws IOException {
    return openStore(uri, Map.of(), waits);
  }
}
