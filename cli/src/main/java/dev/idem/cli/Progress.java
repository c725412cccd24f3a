package dev.idem.cli;

import java.io.PrintWriter;
import java.util.Timer;
import java.util.TimerTask;
import java.util.function.Supplier;

/**
 * A progress line on stderr for work that takes over a second: nothing for quick commands, then one
 * line after the first second and one per {@code every} after that. Whole lines (no carriage
 * returns), so logs stay readable. The timer thread is a daemon and starts only when needed.
 */
final class Progress implements AutoCloseable {
  private static final long FIRST_MILLIS = 1000;

  private final Timer timer;

  private Progress(Timer timer) {
    this.timer = timer;
  }

  /**
   * @param enabled false under {@code --quiet}: then nothing is scheduled
   * @param status what to say; called on the timer thread, so it must be thread-safe
   */
  static Progress start(PrintWriter err, boolean enabled, long everyMillis, Supplier<String> status) {
    if (!enabled) {
      return new Progress(null);
    }
    Timer t = new Timer("idem-progress", true);
    long started = System.nanoTime();
    t.scheduleAtFixedRate(new TimerTask() {
      @Override
      public void run() {
        long secs = (System.nanoTime() - started) / 1_000_000_000L;
        synchronized (err) {
          err.println("idem: " + status.get() + " (" + secs + "s)");
          err.flush();
        }
      }
    }, FIRST_MILLIS, everyMillis);
    return new Progress(t);
  }

  @Override
  public void close() {
    if (timer != null) {
      timer.cancel();
    }
  }
}
