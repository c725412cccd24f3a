package dev.idem.cli;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.Optional;
import picocli.CommandLine;

/**
 * Entry point. Builds the command line with the shared handlers (exit codes, one-line errors, the
 * exit-code table in every help page) and runs it.
 *
 * <p>picocli builds a command's model by reflecting over its fields, their annotations and types,
 * which for all of idem's commands took about as long as starting the JVM. So the model comes from
 * {@link CommandModels}, which the command-model processor generates from the annotated classes as
 * this module compiles ({@code CommandModelsTest} compares the two): plain code, no annotation read, no
 * field written by reflection (get and scan, which use argument groups, are still built by picocli from
 * their annotations). And a
 * run needs the full model of one command only, the one it invokes; the others appear in the
 * top-level help and in "did you mean" suggestions, which need only their names and summaries. So
 * {@link #commandLineFor(CliContext, String...)} builds the invoked command in full and the rest as
 * summaries, and {@link #commandLine(CliContext)} builds everything, for what walks the whole model
 * (documentation, completion, tests). {@code LazyModelTest} checks that both give the same help and
 * errors.
 */
public final class Main {
  private Main() {}

  /**
   * The regular expression of the types whose built-in converters picocli does not register (system
   * property {@code picocli.converters.excludes}). Every {@code CommandLine} registers them with
   * {@code Class.forName}, which initialises java.time's formatter tables and, for the java.sql types
   * the distribution's runtime lacks, searches every jar on the class path, ten times for a line's
   * command tree. No idem option relies on them: its java.time options name their own converter
   * ({@code PicocliSettingsTest} fails for one that does not).
   */
  static final String UNUSED_CONVERTERS = "java\\.(sql|time|nio\\.file)\\..*";

  public static void main(String[] args) {
    if (System.getProperty(JitRelaunch.PROPERTY) != null) {
      Optional<Integer> relaunched = JitRelaunch.runIfNeeded(args);
      if (relaunched.isPresent()) {
        System.exit(relaunched.get());
      }
    }
    CliContext ctx = CliContext.system();
    int code = run(ctx, null, null, args);
    System.out.flush();
    // Runtime.exit logs through System.Logger (JDK 21+), whose first use searches every jar
    // for a LoggerFinder. A successful command that left no other non-daemon thread ends as main
    // returns: same exit code, same shutdown hooks, daemon threads dropped alike. Anything else
    // exits as before.
    if (code != 0 || !othersAreDaemons()) {
      System.exit(code);
    }
  }

  /** Whether every live thread but this one is a daemon, so that returning from main ends the JVM. */
  static boolean othersAreDaemons() {
    ThreadGroup root = Thread.currentThread().getThreadGroup();
    while (root.getParent() != null) {
      root = root.getParent();
    }
    Thread[] threads = new Thread[root.activeCount() + 16];
    int n = root.enumerate(threads, true);
    if (n == threads.length) {
      return false; // more threads than the array holds: some went unseen
    }
    for (int i = 0; i < n; i++) {
      if (threads[i] != Thread.currentThread() && threads[i].isAlive() && !threads[i].isDaemon()) {
        return false;
      }
    }
    return true;
  }

  /** Every command's full model; callers may replace its out/err writers (tests do). */
  public static CommandLine commandLine(CliContext ctx) {
    return build(ctx, null);
  }

  /**
   * The command line to execute {@code args} with: the subcommand they invoke (the first argument
   * that is not an option) built in full, every other one as its name and summary.
   */
  public static CommandLine commandLineFor(CliContext ctx, String... args) {
    String invoked = "";
    for (String arg : args) {
      if (!arg.startsWith("-")) {
        invoked = arg;
        break;
      }
    }
    return build(ctx, invoked);
  }

  /** {@code invoked == null}: every subcommand in full; else only the one of that name or alias. */
  private static CommandLine build(CliContext ctx, String invoked) {
    skipUnusedPicocliLookups();
    CommandLine cl = new CommandLine(CommandModels.idem(new IdemCommand(ctx)));
    for (int i = 0; i < CommandModels.NAMES.length; i++) {
      String name = CommandModels.NAMES[i];
      if (invoked == null || invoked.equals(name) || Arrays.asList(CommandModels.ALIASES[i]).contains(invoked)) {
        cl.addSubcommand(CommandModels.command(i));
      } else {
        cl.addSubcommand(name, CommandModels.summary(i));
      }
    }
    return configure(cl, ctx);
  }

  /**
   * picocli settings (system properties, so set before its first use and only when not set already)
   * that spare every start class-path searches for what idem never uses: Groovy closures (picocli
   * looks for {@code groovy.lang.Closure} once) and the built-in converters of {@link #UNUSED_CONVERTERS}.
   */
  static void skipUnusedPicocliLookups() {
    if (System.getProperty("picocli.disable.closures") == null) {
      System.setProperty("picocli.disable.closures", "true");
    }
    if (System.getProperty("picocli.converters.excludes") == null) {
      System.setProperty("picocli.converters.excludes", UNUSED_CONVERTERS);
    }
  }

  /**
   * The shared handlers and help settings on a command line built from any model: the generated one
   * here, the annotated one in the tests that compare the two.
   */
  static CommandLine configure(CommandLine cl, CliContext ctx) {
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
    try {
      return run(ctx, out, err, args);
    } finally {
      out.flush();
      err.flush();
    }
  }

  /**
   * Runs one command line, with options typed before the command moved after it ({@link LeadingOptions});
   * {@code out} and {@code err} null: picocli's own (the process's streams).
   */
  private static int run(CliContext ctx, PrintWriter out, PrintWriter err, String[] args) {
    String[] line;
    LeadingOptions.Misplaced misplaced = null;
    try {
      line = LeadingOptions.moveAfterCommand(args);
    } catch (LeadingOptions.Misplaced e) {
      misplaced = e;
      line = args;
    }
    CommandLine cl = commandLineFor(ctx, line);
    if (out != null) {
      cl.setOut(out);
    }
    if (err != null) {
      cl.setErr(err);
    }
    if (misplaced != null) {
      cl.getErr().println("idem: " + misplaced.getMessage() + " (see 'idem " + misplaced.command + " --help')");
      cl.getErr().flush();
      if (ExitCodes.jsonRequested(args)) {
        ExitCodes.printJsonError(cl, ExitCodes.USAGE, misplaced.getMessage());
      }
      return ExitCodes.USAGE;
    }
    return cl.execute(line);
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
