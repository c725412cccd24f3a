package dev.idem.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.Timer;
import java.util.TimerTask;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * A progress report on stderr for work that takes a while: nothing for quick commands, then, in a log,
 * one whole line after {@link CliContext#progressAfter()} (a second) and one per {@code every} after that (no carriage
 * returns, so logs stay readable); on a terminal, one live line redrawn every second in place and
 * erased when the work ends, so the command's own output starts on a clean line. Stdout is never
 * written. The timer thread is a daemon and starts only when needed; a report racing with {@link
 * #close()} is dropped.
 */
final class Progress implements AutoCloseable {
  private static final long LIVE_MILLIS = 1000;

  private final PrintWriter err;
  private final boolean terminal;
  private final LongFunction<String> status;
  private final Timer timer;
  private boolean drawn;
  private boolean closed;

  /** A report the caller drives with {@link #report}; {@link #start} drives one with a timer. */
  Progress(PrintWriter err, boolean terminal, LongFunction<String> status) {
    this(err, terminal, status, null);
  }

  private Progress(PrintWriter err, boolean terminal, LongFunction<String> status, Timer timer) {
    this.err = err;
    this.terminal = terminal;
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
   * @param terminal stderr is a terminal: one live line, redrawn every second
   * @param status what to say given the milliseconds since the start; called on the timer thread
   */
  static Progress start(PrintWriter err, boolean enabled, boolean terminal, Duration after, long everyMillis,
      LongFunction<String> status) {
    if (!enabled) {
      return new Progress(err, terminal, status, null);
    }
    Timer t = new Timer("idem-progress", true);
    Progress p = new Progress(err, terminal, status, t);
    long started = System.nanoTime();
    t.scheduleAtFixedRate(new TimerTask() {
      @Override
      public void run() {
        p.report((System.nanoTime() - started) / 1_000_000L);
      }
    }, after.toMillis(), terminal ? LIVE_MILLIS : everyMillis);
    return p;
  }

  /** Whether stderr is likely a terminal: the JVM has a console (stdin and stdout are terminals). */
  static boolean onTerminal() {
    return System.console() != null;
  }

  /** Says where the work is, {@code elapsedMillis} after its start. */
  void report(long elapsedMillis) {
    synchronized (err) {
      if (closed) {
        return;
      }
      String line = "idem: " + status.apply(elapsedMillis);
      if (terminal) {
        err.print("\r" + line + "\033[K");
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
