package dev.idem.fuzz;

/** How one replica's run ends. */
public sealed interface Fate {

  /** Runs to the end: publishes (or skips) and advances the pointer. */
  record Finishes() implements Fate {
    @Override
    public String toString() {
      return "finishes";
    }
  }

  /**
   * Dies at {@code step}. {@link Death#SIGKILL} and {@link Death#SIGTERM} are real signals to a
   * separate JVM that parks at the step until the runner sends them; {@link Death#THREAD_DEATH} is a
   * thread in the runner's JVM that stops at the step (the in-memory store has no processes).
   */
  record Dies(Death death, Step step) implements Fate {
    @Override
    public String toString() {
      return death.story + " " + step;
    }
  }

  /**
   * Hits one injected I/O fault at {@code step}, then runs again the way a scheduler would retry the
   * job (a retry must be safe: contract of {@code putIfAbsent} and {@code compareAndSetPointer}).
   */
  record Faulted(Fault fault, Step step) implements Fate {
    @Override
    public String toString() {
      return "hits " + fault.story + " " + step + ", then retries";
    }
  }

  /**
   * Pauses {@code millis} at {@code step}, then goes on as if nothing happened: a stop-the-world pause,
   * a {@code SIGSTOP}ped process, a writer on an overloaded host. Between an object's link and its
   * directory fsync it lets others find the object and point at it (G1 then rests on their own sync);
   * holding the pointer lock it makes every other advance of the pipeline wait (B1: they end BUSY by
   * their deadline instead of waiting without bound).
   */
  record Stalls(Step step, int millis) implements Fate {
    @Override
    public String toString() {
      return "stalls " + millis + "ms " + step + ", then finishes";
    }
  }

  /**
   * Its clock runs a day ahead, so it computes a window that has not closed yet (G5): the publish must
   * be refused before the task runs and before anything is read or written, and the pointer never
   * moves there.
   */
  record ClockAhead() implements Fate {
    @Override
    public String toString() {
      return "its clock runs a day ahead (a window that has not closed): refused";
    }
  }

  enum Death {
    SIGKILL("killed with SIGKILL"),
    SIGTERM("stopped with SIGTERM"),
    THREAD_DEATH("its thread dies");

    final String story;

    Death(String story) {
      this.story = story;
    }

    /** Whether this death needs a separate process. */
    boolean needsProcess() {
      return this != THREAD_DEATH;
    }
  }

  enum Fault {
    IO_ERROR("an I/O error"),
    HTTP_TIMEOUT("an HTTP timeout"),
    HTTP_500("HTTP 500"),
    HTTP_503_SLOW_DOWN("HTTP 503 SlowDown"),
    HTTP_409_CONFLICT("HTTP 409 ConditionalRequestConflict"),
    CONNECTION_RESET("a connection reset mid-body"),
    HTTP_BODY_STALL("a reply that stalls mid-body");

    final String story;

    Fault(String story) {
      this.story = story;
    }
  }
}
