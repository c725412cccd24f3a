package dev.idem.cli;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Options typed before the command, as git and the AWS CLI accept them ({@code idem --store X key ...}):
 * they are moved to just after the command's name (after {@code pointer show} for a nested one), where
 * picocli parses them as the command's own. Exists because picocli reads options before a subcommand as
 * the top command's, which has none but help and version, and then blames the tokens after the command.
 *
 * <p>Only options the command itself has are moved; any other is refused with a line naming it and the
 * command ({@link Misplaced}). Nothing after the command is looked at or changed, so {@code run}'s CMD
 * and its arguments stay as typed. A line that starts with the command, or with help or version, is
 * returned as it is, without building any model: the usual start pays nothing.
 */
final class LeadingOptions {
  private static final Set<String> TOP_LEVEL = Set.of("-h", "--help", "-V", "--version");

  private LeadingOptions() {}

  /** An option before the command that the command does not have. */
  static final class Misplaced extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final String command;

    Misplaced(String option, String command) {
      super("option '" + option + "' comes before the command '" + command + "', which has no such option (options"
          + " before the command are the command's own, moved after its name)");
      this.command = command;
    }
  }

  /**
   * {@code args} with the options before the command moved to just after its name.
   *
   * @throws Misplaced when one of them is not an option of the command
   */
  static String[] moveAfterCommand(String[] args) {
    if (args.length == 0 || !args[0].startsWith("-") || args[0].equals("--") || TOP_LEVEL.contains(args[0])) {
      return args;
    }
    CommandLine top = model();
    Set<String> valued = new HashSet<>();
    collectValued(top, valued);
    List<String> leading = new ArrayList<>();
    List<String> names = new ArrayList<>();
    int i = 0;
    while (i < args.length && args[i].startsWith("-") && !args[i].equals("--")) {
      String name = nameOf(args[i]);
      if (TOP_LEVEL.contains(name)) {
        return args;
      }
      names.add(name);
      leading.add(args[i]);
      i++;
      if (!args[i - 1].contains("=") && valued.contains(name) && i < args.length) {
        leading.add(args[i]);
        i++;
      }
    }
    CommandLine command = i < args.length ? top.getSubcommands().get(args[i]) : null;
    if (command == null) {
      return args; // no command, or not one: picocli says what is wrong as before
    }
    int end = i + 1;
    while (end < args.length && command.getSubcommands().containsKey(args[end])) {
      command = command.getSubcommands().get(args[end]);
      end++;
    }
    CommandSpec spec = command.getCommandSpec();
    for (String name : names) {
      if (spec.findOption(name) == null) {
        throw new Misplaced(name, spec.qualifiedName().substring("idem ".length()));
      }
    }
    List<String> out = new ArrayList<>(List.of(args).subList(i, end));
    out.addAll(leading);
    out.addAll(List.of(args).subList(end, args.length));
    return out.toArray(new String[0]);
  }

  /** {@code --store=x} is {@code --store}. */
  private static String nameOf(String arg) {
    int eq = arg.indexOf('=');
    return eq > 0 ? arg.substring(0, eq) : arg;
  }

  /** Every option name, in any command, that takes a value: what a leading option's next token is. */
  private static void collectValued(CommandLine cl, Set<String> valued) {
    for (OptionSpec o : cl.getCommandSpec().options()) {
      if (o.arity().max() > 0 && !o.typeInfo().isBoolean()) {
        valued.addAll(List.of(o.names()));
      }
    }
    cl.getSubcommands().values().forEach(sub -> collectValued(sub, valued));
  }

  /** Every command in full: built only for a line that starts with an option. */
  private static CommandLine model() {
    Main.skipUnusedPicocliLookups();
    CommandLine cl = new CommandLine(CommandModels.idem(new IdemCommand(null)));
    for (int i = 0; i < CommandModels.NAMES.length; i++) {
      cl.addSubcommand(CommandModels.command(i));
    }
    return cl;
  }
}
