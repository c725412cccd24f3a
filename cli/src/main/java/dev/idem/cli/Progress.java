package dev.idem.cli;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Timer;
import java.util.TimerTask;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * A progress report on stderr for work that takes a while: nothing for quick commands, then, in a log,
 * one whole line after {@link CliContext#progressAfter()} (a second) and one per {@code every} after that (no carriage
 * returns, so logs stay readable); on a terminal, one live line redrawn every second in place and
 * erased when the work ends, so the command's own output starts on a clean line. Stdout is never
 * written. The timer thread is a daemon and starts only when needed; a report racing with {@link
 * #close()} is dropped.
 *
 * <p>The live line is drawn only when stderr itself is a terminal ({@link #onTerminal()}: stdout or
 * stdin being one says nothing about where stderr goes, e.g. {@code idem publish ... 2> log}), and is
 * fitted to the terminal's width ({@link #fit}), since a line that wraps is redrawn from its last row
 * only and scrolls instead.
 */
final class Progress implements AutoCloseable {
  private static final long LIVE_MILLIS = 1000;
  /** The width assumed when a terminal's cannot be learned. */
  private static final int DEFAULT_COLUMNS = 80;
  private static final String CUT = "...";
  /** stderr's terminal width, or 0 when stderr is not a terminal; learned once per process. */
  private static volatile Integer stderrColumns;

  private final PrintWriter err;
  /** The terminal's width; 0: a log; negative: a terminal whose width is learned at the first draw. */
  private int columns;
  private final LongFunction<String> status;
  private final Timer timer;
  private boolean drawn;
  private boolean closed;

  /**
   * A report the caller drives with {@link #report}; {@link #start} drives one with a timer.
   *
   * @param columns the width of the terminal the live line is drawn on; 0: not a terminal, whole lines
   */
  Progress(PrintWriter err, int columns, LongFunction<String> status) {
    this(err, columns, status, null);
  }

  private Progress(PrintWriter err, int columns, LongFunction<String> status, Timer timer) {
    this.err = err;
    this.columns = columns;
    this.status = status;
    this.timer = timer;
  }

  /**
   * Whole lines, as in a log.
   *
   * @param enabled false under {@code --quiet}: then nothing is scheduled
   * @param after the first report comes this long after the start
   * @param status what to say; called on the timer thread, so it must be thread-safe
   */
  static Progress start(PrintWriter err, boolean enabled, Duration after, long everyMillis, Supplier<String> status) {
    return start(err, enabled, false, after, everyMillis, elapsed -> status.get() + " (" + elapsed / 1000 + "s)");
  }

  /**
   * @param after the first report (or live line) comes this long after the start
   * @param terminal stderr is a terminal ({@link #onTerminal()}): one live line, redrawn every second and
   *     fitted to its width, which is learned at the first draw
   * @param status what to say given the milliseconds since the start; called on the timer thread
   */
  static Progress start(PrintWriter err, boolean enabled, boolean terminal, Duration after, long everyMillis,
      LongFunction<String> status) {
    // Quick work never draws: the width (an stty run) is learned at the first draw.
    int width = terminal ? -1 : 0;
    if (!enabled) {
      return new Progress(err, width, status, null);
    }
    Timer t = new Timer("idem-progress", true);
    Progress p = new Progress(err, width, status, t);
    long started = System.nanoTime();
    t.scheduleAtFixedRate(new TimerTask() {
      @Override
      public void run() {
        p.report((System.nanoTime() - started) / 1_000_000L);
      }
    }, after.toMillis(), width > 0 ? LIVE_MILLIS : everyMillis);
    return p;
  }

  /** Whether stderr is a terminal (on Linux: its file descriptor names a tty device; elsewhere: not known, so no). */
  static boolean onTerminal() {
    return ttyOfStderr() != null;
  }

  /** Whether a file descriptor's link target ({@code /proc/self/fd/N}) is a terminal device. */
  static boolean terminalDevice(String target) {
    return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty") || target.equals("/dev/console");
  }

  /** The tty stderr is on, or {@code null} when it is not on one (a file, a pipe) or this is not Linux. */
  private static String ttyOfStderr() {
    try {
      String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
      return terminalDevice(target) ? target : null;
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return null;
    }
  }

  /**
   * stderr's terminal width: {@code $COLUMNS} when set, else what {@code stty size} says of stderr's tty,
   * else {@value #DEFAULT_COLUMNS}; 0 when stderr is not a terminal. Asked once per process, and only by
   * work long enough to report (one short {@code stty} run).
   */
  static int stderrColumns() {
    Integer known = stderrColumns;
    if (known == null) {
      String tty = ttyOfStderr();
      known = tty == null ? 0 : columnsOf(tty);
      stderrColumns = known;
    }
    return known;
  }

  private static int columnsOf(String tty) {
    try {
      int columns = Integer.parseInt(System.getenv().getOrDefault("COLUMNS", "").strip());
      if (columns > 0) {
        return columns;
      }
    } catch (NumberFormatException e) {
      // not set, or not a number: ask the terminal
    }
    try {
      Process stty = new ProcessBuilder("stty", "size").redirectInput(new File(tty))
          .redirectError(ProcessBuilder.Redirect.DISCARD).start();
      String out = new String(stty.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
      if (stty.waitFor(2, TimeUnit.SECONDS) && stty.exitValue() == 0) {
        int columns = Integer.parseInt(out.substring(out.indexOf(' ') + 1));
        return columns > 0 ? columns : DEFAULT_COLUMNS;
      }
      stty.destroy();
    } catch (IOException | RuntimeException e) {
      // no stty (a minimal image) or an answer not of "rows columns"
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return DEFAULT_COLUMNS;
  }

  /**
   * {@code line} in fewer than {@code columns} characters (the last column is left free: a line that
   * fills it wraps on some terminals): a longer one keeps its start and, the larger part, its end (where
   * the numbers are), with {@value #CUT} between.
   */
  static String fit(String line, int columns) {
    int room = columns - 1;
    if (line.length() <= room) {
      return line;
    }
    if (room <= CUT.length()) {
      return line.substring(0, Math.max(room, 0));
    }
    int keep = room - CUT.length();
    int head = keep / 3;
    return line.substring(0, head) + CUT + line.substring(line.length() - (keep - head));
  }

  /** Says where the work is, {@code elapsedMillis} after its start. */
  void report(long elapsedMillis) {
    synchronized (err) {
      if (closed) {
        return;
      }
      String line = "idem: " + status.apply(elapsedMillis);
      if (columns < 0) {
        int learned = stderrColumns();
        columns = learned > 0 ? learned : DEFAULT_COLUMNS;
      }
      if (columns > 0) {
        err.print("\r" + fit(line, columns) + "\033[K");
        drawn = true;
      } else {
        err.println(line);
      }
      err.flush();
    }
  }

  @Override
  public void close() {
    if (timer != null) {
      timer.cancel();
    }
    synchronized (err) {
      closed = true;
      if (drawn) {
        err.print("\r\033[K");
        err.flush();
      }
    }
  }
}
