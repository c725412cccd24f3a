package dev.idem.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The top command: lists every subcommand once, in the order help lists them, and holds the {@link
 * CliContext} they share. {@link Main} does not build this model by reflection: it builds the one in
 * {@code CommandModels}, which the command-model processor generates from these annotations as the
 * module compiles, and of it only the command a line invokes in full.
 */
@Command(
    name = "idem",
    mixinStandardHelpOptions = true,
    subcommands = {
        RunCommand.class,
        KeyCommand.class,
        PublishCommand.class,
        GetCommand.class,
        PointerCommand.class,
        HistoryCommand.class,
        PipelinesCommand.class,
        ScanCommand.class,
        AckCommand.class,
        GcCommand.class,
        DemoCommand.class,
        DoctorCommand.class},
    versionProvider = IdemCommand.Version.class,
    description = {
        "Makes a scheduled task safe to run twice: the output key comes from the inputs, publishing is "
            + "create-only, readers follow a monotonic 'latest' pointer, and a divergence scan finds keys "
            + "written with different bytes.",
        ""
    },
    footerHeading = "%nStores:%n",
    footer = {
        "  file:PATH           a local or shared directory (default: file:.idem)",
        "  s3://bucket/prefix  S3, configured by AWS_ENDPOINT_URL, AWS_REGION,",
        "                      AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,",
        "                      AWS_SESSION_TOKEN, AWS_PROFILE",
        "  Pick one with --store URI on any command, or IDEM_STORE, or store = in the",
        "  configuration file (~/.config/idem/config; idem doctor shows it).",
    })
public final class IdemCommand implements Callable<Integer> {
  private final CliContext context;

  @Spec
  CommandSpec spec;

  IdemCommand(CliContext context) {
    this.context = context;
  }

  CliContext context() {
    return context;
  }

  /**
   * The context of the command line {@code spec} belongs to; every command asks for it first, so a bad
   * configuration file ends the command here, before anything is read or written.
   *
   * @throws UsageException naming what is wrong with the configuration file
   */
  static CliContext context(CommandSpec spec) {
    CliContext ctx = ((IdemCommand) spec.root().userObject()).context;
    if (ctx.settings().error() != null) {
      throw ctx.settings().error();
    }
    return ctx;
  }

  @Override
  public Integer call() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a command is required: "
        + String.join(", ", spec.subcommands().keySet()));
  }

  /**
   * The version, commit and build date baked into the jar by the build (version.properties, filtered
   * with what cli/src/build/build-info.sh found), read without reflection. A fact the build could not
   * know (a source tarball has no commit) or a jar built without the filter reads "unknown".
   */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
      Properties p = properties();
      return new String[] {
          "idem " + value(p, "version") + " (commit " + value(p, "commit") + ", built " + value(p, "built") + ")",
          "Java " + Runtime.version() + " (" + System.getProperty("java.vm.name") + ")"};
    }

    static String version() {
      return value(properties(), "version");
    }

    /** The property, or "unknown" when it is missing, empty or an unfiltered ${...} placeholder. */
    static String value(Properties p, String name) {
      String v = p.getProperty(name, "").strip();
      return v.isEmpty() || v.startsWith("${") ? "unknown" : v;
    }

    private static Properties properties() {
      Properties p = new Properties();
      try (InputStream in = IdemCommand.class.getResourceAsStream("version.properties")) {
        if (in != null) {
          p.load(in);
        }
      } catch (IOException e) {
        return new Properties();
      }
      return p;
    }
  }
}
