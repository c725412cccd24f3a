package dev.idem.cli;

import java.io.PrintWriter;
import picocli.CommandLine;

/**
 * Entry point. Builds the command line once with the shared handlers (exit codes, one-line errors,
 * the exit-code table in every help page) and runs it.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    CliContext ctx = CliContext.system();
    int code = commandLine(ctx).execute(args);
    System.out.flush();
    System.exit(code);
  }

  /** A fully configured command line; callers may replace its out/err writers (tests do). */
  public static CommandLine commandLine(CliContext ctx) {
    CommandLine cl = new CommandLine(new IdemCommand(ctx));
    ExitCodes codes = new ExitCodes();
    cl.setExitCodeExceptionMapper(codes);
    cl.setExecutionExceptionHandler(new ExitCodes.ExecutionHandler(ctx.env("IDEM_DEBUG") != null));
    cl.setParameterExceptionHandler(new ExitCodes.ParameterHandler());
    // Everything after CMD belongs to CMD, even without "--": `idem run ... sh -c 'x --y'`.
    cl.getSubcommands().get("run").setStopAtPositional(true);
    applyToAll(cl);
    return cl;
  }

  /** Convenience for tests and embedding: run with the given writers, return the exit code. */
  public static int execute(CliContext ctx, PrintWriter out, PrintWriter err, String... args) {
    CommandLine cl = commandLine(ctx);
    cl.setOut(out);
    cl.setErr(err);
    try {
      return cl.execute(args);
    } finally {
      out.flush();
      err.flush();
    }
  }

  private static void applyToAll(CommandLine cl) {
    cl.getCommandSpec().usageMessage()
        .exitCodeListHeading("%nExit codes:%n")
        .exitCodeList(ExitCodes.helpTable())
        .sortOptions(false);
    for (CommandLine sub : cl.getSubcommands().values()) {
      applyToAll(sub);
    }
  }
}
