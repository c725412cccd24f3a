package dev.idem.cli;

import dev.idem.core.proof.StoreRefusedException;
import dev.idem.core.publish.TaskFailedException;
import dev.idem.core.store.MissingCapabilityException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IExitCodeExceptionMapper;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The one table of exit codes, and the one place that turns an exception into a code and a one-line
 * message. Commands return codes for outcomes (divergence, contention) and throw for failures; this
 * class decides what every failure means.
 *
 * <p>{@code idem run} is the one exception to the table: when CMD itself exits non-zero, idem exits
 * with CMD's own code (like {@code exec}), so a scheduler sees the task's failure unchanged. idem's
 * own failures around CMD keep their codes here; a CMD code that collides with one of them is told
 * apart by the line idem prints on stderr (or the {@code --json} report), or, with {@code run
 * --cmd-exit N}, never collides: every CMD failure then exits N.
 *
 * <p>A failure of {@code run}'s publish after CMD succeeded keeps CMD's result ({@link
 * ResultKeptException}): its line and JSON error name where ({@code kept_result}), and its code is the
 * failure's own.
 *
 * <p>Signals: a SIGINT or SIGTERM ends the JVM with 128 + signal number after the shutdown hooks
 * ran (130 and 143), which is also what a shell reports for a process killed by them.
 */
public final class ExitCodes implements IExitCodeExceptionMapper {
  public static final int OK = 0;
  /**
   * A divergent publish (also one the store could not record, or whose bytes it could not keep: never
   * {@link #STORE_UNAVAILABLE}, which would read as a hiccup to retry), or a scan that found divergent keys
   * or stopped before the end.
   */
  public static final int DIVERGENT = 1;
  /** Bad flags, values, names, URIs or files; picocli's own code for invalid input. */
  public static final int USAGE = 2;
  /**
   * A pointer advance gave up at its deadline: its lock was not obtained (BUSY) or other writers kept
   * moving the pointer (CONFLICT); the message says which. Nothing was lost, retry later.
   */
  public static final int CONTENDED = 3;
  /**
   * The store could not be read or written (I/O error, unreachable, corrupt reply), or did not answer in
   * time: a connect or read timeout on every attempt, or the command's overall deadline ({@code
   * --max-time}) ran out; the message names the wait.
   */
  public static final int STORE_UNAVAILABLE = 4;
  /** Credentials are missing, broken or refused by the store. */
  public static final int AUTH = 5;
  /** {@code run}: CMD could not start or wrote no result; nothing was published. */
  public static final int TASK_FAILED = 6;
  /** What was asked for is not there: no pointer yet, no object at the key. */
  public static final int NOT_FOUND = 7;
  /**
   * The store failed a guarantee probe (a conditional header it ignores, no hard links), or its marker
   * names another pointer mode than this process's: idem refuses to write there; nothing was written.
   * Also a store that lacks what the command cannot do without ({@link MissingCapabilityException}: a
   * scan, {@code history}, {@code ack} or {@code get --latest-of-schema} on a store that keeps no publish history).
   */
  public static final int STORE_REFUSED = 8;
  /**
   * A scan examined nothing (no key and no pointer matched), or its {@code file:} directory holds files
   * but no {@code _idem/}: a gate never passes on nothing.
   */
  public static final int NOTHING_EXAMINED = 9;
  /** A bug in idem (sysexits' EX_SOFTWARE). */
  public static final int INTERNAL = 70;
  public static final int INTERRUPTED_SIGINT = 130;
  public static final int INTERRUPTED_SIGTERM = 143;

  /** Shown under "Exit codes:" in every command's help, in the order of the table. */
  public static Map<String, String> helpTable() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(" " + OK, "success (also: run found the key already published and skipped CMD; a publish re-created a window gc had removed, REPUBLISHED)");
    m.put(" " + DIVERGENT, "divergence: different bytes met at one key (also when the store could not record it: stderr says why), or a scan found divergent keys, a pointer whose object is missing or holds other bytes, a window with two keys under --fail-on-drift (or was cut short)");
    m.put(" " + USAGE, "usage error: bad flag, value, name, store URI or file, an empty file to publish, a window not yet closed (beyond --max-clock-skew), or an ack of a key that is not divergent; nothing written");
    m.put(" " + CONTENDED, "contention: the pointer's lock was not obtained (BUSY) or others kept moving the pointer (CONFLICT) within --pointer-timeout, or what --max-time left (the message names which); safe to retry (pointer rewind: the pointer is not at --expect)");
    m.put(" " + STORE_UNAVAILABLE, "store unavailable: I/O error, unreachable store, unwritable path or too little free space (run checks before "
        + "starting CMD; a result it could not publish is kept), corrupt object, a full TMPDIR spool (named), or no answer in "
        + "time: a connect or read timeout on every attempt, or --max-time ran out (the message names the wait)");
    m.put(" " + AUTH, "auth failure: no usable credentials, or the store refused them");
    m.put(" " + TASK_FAILED, "task failed: run could not start CMD, or CMD wrote no result or an empty one (--allow-empty publishes it; CMD's own non-zero code is passed through, or mapped by --cmd-exit N)");
    m.put(" " + NOT_FOUND, "not found: no pointer for the pipeline, no object at the key, no generation of the pipeline or schema");
    m.put(" " + STORE_REFUSED, "store refused: it failed a guarantee probe, its marker names another pointer mode, or it "
        + "lacks what the command needs (a store without publish history: scan, history, ack, get --latest-of-schema); nothing written");
    m.put(" " + NOTHING_EXAMINED, "nothing examined: a scan met no keys and no pointer (--allow-empty passes a new pipeline), or its file: directory is not an idem store");
    m.put(INTERNAL + "", "internal error (a bug; IDEM_DEBUG=1 prints the stack trace)");
    m.put(INTERRUPTED_SIGINT + "", "interrupted by SIGINT (CMD, if started, got it too; nothing partial published)");
    m.put(INTERRUPTED_SIGTERM + "", "interrupted by SIGTERM (CMD, if started, got it too; nothing partial published)");
    return m;
  }

  @Override
  public int getExitCode(Throwable t) {
    return codeOf(t);
  }

  /** The code for a failure; the first match along the cause chain wins. */
  public static int codeOf(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof ParameterException || c instanceof UsageException) {
        return USAGE;
      }
      if (c instanceof ContendedException) {
        return CONTENDED;
      }
      if (c instanceof NotFoundException) {
        return NOT_FOUND;
      }
      if (c instanceof NothingExaminedException) {
        return NOTHING_EXAMINED;
      }
      if (c instanceof AuthFailureException || isS3AuthFailure(c)) {
        return AUTH;
      }
      if (c instanceof InterruptedException || c instanceof InterruptedIOException) {
        return INTERRUPTED_SIGINT;
      }
      if (c instanceof TaskFailedException) {
        return TASK_FAILED;
      }
      if (c instanceof StoreRefusedException || c instanceof MissingCapabilityException) {
        return STORE_REFUSED;
      }
      if (c instanceof IOException || c instanceof UncheckedIOException) {
        return STORE_UNAVAILABLE;
      }
      if (c instanceof IllegalArgumentException) {
        // Names, keys and windows are validated by core with IllegalArgumentException: user input.
        return USAGE;
      }
    }
    return INTERNAL;
  }

  /**
   * Only the S3 store's own exceptions can be its auth failures. Asking {@link S3Stores} about any
   * other would load the S3 classes into every failing {@code file:} command.
   */
  private static boolean isS3AuthFailure(Throwable c) {
    return c.getClass().getName().startsWith("dev.idem.store.s3.") && S3Stores.isAuthFailure(c);
  }

  /** One line, never a stack trace: what failed and, for file errors, which file. */
  public static String oneLine(Throwable t) {
    String msg;
    if (t instanceof FileSystemException fse && fse.getFile() != null) {
      // Name both paths of a two-path failure (link, rename): either may be the one at fault.
      msg = fse.getFile() + (fse.getOtherFile() != null ? " -> " + fse.getOtherFile() : "") + ": "
          + (fse.getReason() != null ? fse.getReason() : reason(fse));
    } else if (t instanceof UncheckedIOException u && u.getCause() != null) {
      return oneLine(u.getCause());
    } else {
      msg = t.getMessage();
      if (msg == null || msg.isBlank()) {
        msg = t.getClass().getSimpleName();
      }
    }
    return msg.replaceAll("[\\r\\n]+", " ").strip();
  }

  private static String reason(FileSystemException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file or directory";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof NotDirectoryException) {
      return "not a directory";
    }
    if (e instanceof FileAlreadyExistsException) {
      return "already exists";
    }
    return e.getClass().getSimpleName();
  }

  /**
   * The one line for a failure inside a command. A bare {@link IOException} (the JDK's channel reads
   * and writes say only "Invalid argument" or "Input/output error") gets the store it came from, so
   * the line always names where the failure was.
   */
  static String oneLine(Throwable t, CommandLine cmd) {
    String line = oneLine(t);
    String store = StoreOption.openedIn(cmd);
    if (store != null && isBare(t) && !line.contains(store)) {
      return line + " (store " + store + ")";
    }
    return line;
  }

  private static boolean isBare(Throwable t) {
    Throwable c = t instanceof UncheckedIOException u && u.getCause() != null ? u.getCause() : t;
    String m = c.getMessage();
    return c.getClass() == IOException.class && (m == null || !m.contains("/"));
  }

  /**
   * Under {@code --json} a failure is also one JSON object on stdout, so a script reads every outcome
   * from stdout and never parses stderr: {@code {"type":"error","exit_code":N,"message":"..."}}.
   */
  static void printJsonError(CommandLine cmd, int code, String message) {
    cmd.getOut().println(Json.object().put("type", "error").put("exit_code", code).put("message", message));
    cmd.getOut().flush();
  }

  /** Whether {@code --json} was given to idem itself (not to {@code run}'s CMD, after {@code --}). */
  static boolean jsonRequested(String[] args) {
    for (String a : args) {
      if (a.equals("--")) {
        return false;
      }
      if (a.equals("--json")) {
        return true;
      }
    }
    return false;
  }

  /** Prints failures from commands as one line on stderr and maps them through the table. */
  static final class ExecutionHandler implements IExecutionExceptionHandler {
    private final boolean debug;

    ExecutionHandler(boolean debug) {
      this.debug = debug;
    }

    @Override
    public int handleExecutionException(Exception ex, CommandLine cmd, ParseResult parseResult) {
      int code = cmd.getExitCodeExceptionMapper().getExitCode(ex);
      ResultKeptException kept = ex instanceof ResultKeptException k ? k : null;
      String message = (code == INTERNAL ? "internal error: " : "")
          + (kept != null ? oneLine(kept.getCause(), cmd) + kept.keptClause() : oneLine(ex, cmd));
      cmd.getErr().println(qualifiedName(cmd) + ": " + message);
      if (debug) {
        ex.printStackTrace(cmd.getErr());
      }
      cmd.getErr().flush();
      if (jsonRequested(parseResult.originalArgs().toArray(new String[0]))) {
        cmd.getOut().println(Json.object().put("type", "error").put("exit_code", code).put("message", message)
            .putIfPresent("kept_result", kept == null ? null : kept.kept.toString()));
        cmd.getOut().flush();
      }
      return code;
    }
  }

  /**
   * Bad input: one line naming the problem and where help is; no usage dump. A mistyped command or
   * option gets the closest matches ({@code idem rn} -> "did you mean run?", {@link Suggestions}).
   */
  static final class ParameterHandler implements IParameterExceptionHandler {
    @Override
    public int handleParseException(ParameterException ex, String[] args) {
      CommandLine cmd = ex.getCommandLine();
      String name = qualifiedName(cmd);
      String unknown = ex instanceof UnmatchedArgumentException ? null
          : Suggestions.unknownOption(args, cmd.getCommandSpec());
      String message = unknown == null ? oneLine(ex) + suggestion(ex)
          : "Unknown option: '" + unknown + "'" + didYouMean(Suggestions.closest(unknown, cmd.getCommandSpec()));
      cmd.getErr().println(name + ": " + message + " (see '" + name + " --help')");
      cmd.getErr().flush();
      int code = cmd.getExitCodeExceptionMapper().getExitCode(ex);
      if (jsonRequested(args)) {
        printJsonError(cmd, code, message);
      }
      return code;
    }

    private static String suggestion(ParameterException ex) {
      return ex instanceof UnmatchedArgumentException u ? didYouMean(Suggestions.of(u)) : "";
    }

    private static String didYouMean(List<String> suggestions) {
      return suggestions.isEmpty() ? "" : "; did you mean " + String.join(" or ", suggestions) + "?";
    }
  }

  static String qualifiedName(CommandLine cmd) {
    return cmd.getCommandSpec().qualifiedName();
  }
}
