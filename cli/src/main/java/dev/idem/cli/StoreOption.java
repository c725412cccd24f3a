package dev.idem.cli;

import dev.idem.core.store.Deadline;
import dev.idem.core.store.ObjectStore;
import java.io.IOException;
import java.util.Map;
import java.time.Duration;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code --store URI}, shared by every command that touches a store, with how long the command waits on
 * it: {@code --connect-timeout}, {@code --read-timeout} and {@code --max-time}, each also read from its
 * variable ({@code IDEM_CONNECT_TIMEOUT}, {@code IDEM_READ_TIMEOUT}, {@code IDEM_MAX_TIME}; a flag wins).
 * {@code --max-time} is the command's one overall deadline (B2, {@link StoreWaits}); it starts when the
 * store is opened. Its default is {@value #DEFAULT_MAX_TIME_TEXT}: scan and gc, whose work grows with the
 * store, get an hour, and a command that moves a payload is allowed 1 s more per MiB of it ({@link
 * #allowFor}), the slowest transfer rate idem accepts anywhere. A value given is exact.
 *
 * <p>A writing command that falls back to the default {@code file:.idem} (neither {@code --store} nor
 * {@code IDEM_STORE} given) says so on stderr: in a pod with a forgotten variable that default is the
 * container's ephemeral disk, and the publish would otherwise look like a success. The store opened is
 * remembered so a failure's one line can name it ({@link #openedIn}).
 */
final class StoreOption {
  /** Commands that write to the store, by qualified name. */
  private static final Set<String> WRITING = Set.of("idem run", "idem publish", "idem pointer advance", "idem pointer rewind", "idem gc",
      "idem ack");
  /** Commands whose work grows with the store, by qualified name: their default deadline is an hour. */
  private static final Set<String> WHOLE_STORE = Set.of("idem scan", "idem gc");

  static final String MAX_TIME = "--max-time";
  static final String DEFAULT_MAX_TIME_TEXT = "2m; scan and gc: 1h; get, publish and run: 2m plus 1 s per MiB of "
      + "the payload";

  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  @Option(names = "--store", paramLabel = "URI",
      description = "Store: file:PATH or s3://bucket/prefix (S3 reads the AWS_* environment). "
          + "Default: $IDEM_STORE, else file:.idem (writing commands then say so on stderr)")
  String uri;

  /** The variable {@code --pointer-mode} overrides. */
  static final String POINTER_MODE_ENV = "IDEM_S3_POINTER_MODE";

  @Option(names = "--pointer-mode", paramLabel = "cas|log",
      description = "The S3 store's pointer mode, cas or log. Default: $IDEM_S3_POINTER_MODE, else the mode the "
          + "store's marker records, else cas (the first writer records it); a mode other than the marker's is "
          + "refused (exit 8).")
  String pointerMode;

  @Option(names = "--connect-timeout", paramLabel = "D", converter = Durations.class,
      description = "How long each attempt waits for a connection to the store's endpoint (S3). "
          + "Default: $IDEM_CONNECT_TIMEOUT, else 10s")
  Duration connectTimeout;

  @Option(names = "--read-timeout", paramLabel = "D", converter = Durations.class,
      description = "How long each attempt waits for the store's reply (S3): for its headers, and for its body "
          + "the same plus 1 s per MiB. Default: $IDEM_READ_TIMEOUT, else 60s")
  Duration readTimeout;

  @Option(names = MAX_TIME, paramLabel = "D", converter = Durations.class,
      description = "The command's overall deadline: its store work ends within D, retries, lock waits and the "
          + "request in flight included; giving up exits 4 naming the deadline (scan: stops, exit 1; run: "
          + "checked before CMD starts, and CMD's own runtime does not count, nor does publish's wait for stdin). "
          + "Default: $IDEM_MAX_TIME, else "
          + DEFAULT_MAX_TIME_TEXT)
  Duration maxTime;

  private String opened;
  private Deadline deadline;
  private boolean defaultDeadline;

  ObjectStore open(CliContext ctx) throws IOException {
    String chosen = StoreUris.choose(uri, ctx.env());
    if (pointerMode != null && !chosen.startsWith("s3://")) {
      throw new UsageException("--pointer-mode applies to s3:// stores; " + chosen + " has one pointer mode (lock)");
    }
    if (pointerMode != null && !pointerMode.equalsIgnoreCase("cas") && !pointerMode.equalsIgnoreCase("log")) {
      throw new UsageException("--pointer-mode must be cas or log, was '" + pointerMode + "'");
    }
    StoreWaits waits = waits(ctx);
    if (WRITING.contains(mixee.qualifiedName()) && StoreUris.DEFAULT.equals(chosen)
        && (uri == null || uri.isEmpty())) {
      mixee.commandLine().getErr().println("idem: no --store or IDEM_STORE given; writing to "
          + StoreUris.DEFAULT + " (the working directory)");
    }
    opened = chosen;
    deadline = waits.deadline();
    return ctx.openStore(uri, pointerMode == null ? Map.of() : Map.of(POINTER_MODE_ENV, pointerMode), waits);
  }

  /** The deadline of the store {@link #open} opened: every wait of the command ends by it. */
  Deadline deadline() {
    if (deadline == null) {
      throw new IllegalStateException("no store opened yet");
    }
    return deadline;
  }

  /**
   * Allows the command 1 s more per started MiB of a payload it moves (the same slowest rate every
   * request is allowed), when its deadline is the default; a deadline given is kept exact.
   */
  void allowFor(long bytes) {
    if (defaultDeadline && bytes > 0) {
      deadline().extend(Duration.ofSeconds((bytes + (1 << 20) - 1) >> 20));
    }
  }

  /** The waits from the flags, else their variables, else the defaults; the deadline starts now. */
  private StoreWaits waits(CliContext ctx) {
    Duration connect = chosen(connectTimeout, "--connect-timeout", "IDEM_CONNECT_TIMEOUT", ctx);
    Duration read = chosen(readTimeout, "--read-timeout", "IDEM_READ_TIMEOUT", ctx);
    Duration max = chosen(maxTime, MAX_TIME, "IDEM_MAX_TIME", ctx);
    defaultDeadline = max == null;
    if (max == null) {
      max = WHOLE_STORE.contains(mixee.qualifiedName()) ? StoreWaits.MAX_TIME_WHOLE_STORE : StoreWaits.MAX_TIME;
    }
    return new StoreWaits(connect != null ? connect : StoreWaits.CONNECT_TIMEOUT,
        read != null ? read : StoreWaits.READ_TIMEOUT, Deadline.after(max, MAX_TIME, ctx.ticker()));
  }

  /** The flag's value, else the variable's, else {@code null}; either must be a positive duration. */
  private static Duration chosen(Duration flag, String option, String variable, CliContext ctx) {
    Duration d = flag;
    String from = option;
    if (d == null && ctx.env(variable) != null) {
      from = variable;
      try {
        d = Durations.parse(ctx.env(variable));
      } catch (TypeConversionException e) {
        throw new UsageException(variable + ": " + e.getMessage());
      }
    }
    if (d != null && (d.isZero() || d.isNegative())) {
      throw new UsageException(from + " must be positive, was " + Durations.format(d));
    }
    return d;
  }

  /** The store URI the command {@code cmd} opened, or {@code null} when it opened none. */
  static String openedIn(CommandLine cmd) {
    CommandSpec mixin = cmd.getCommandSpec().mixins().get("store");
    return mixin != null && mixin.userObject() instanceof StoreOption s ? s.opened : null;
  }
}
