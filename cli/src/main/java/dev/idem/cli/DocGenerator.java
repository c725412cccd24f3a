package dev.idem.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * Writes the shell completion script and the man pages from the command model itself, at build time
 * (the cli module's {@code prepare-package} phase): {@code completion/idem.bash}, which bash sources
 * and zsh loads through {@code bashcompinit}, and {@code man/man1/idem[-COMMAND].1} in troff, one page
 * per command, so neither can fall behind a flag. Our own small roff writer, because picocli's man page
 * generator writes AsciiDoc and asciidoctor is no build dependency.
 *
 * <p>Failure: an I/O error ends the build; files already written stay (the next build rewrites them).
 */
public final class DocGenerator {
  private DocGenerator() {}

  /** {@code DocGenerator OUTPUT_DIR}. */
  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      throw new IllegalArgumentException("usage: DocGenerator OUTPUT_DIR");
    }
    Path out = Path.of(args[0]);
    CommandLine cl = Main.commandLine(CliContext.system());
    Path completion = Files.createDirectories(out.resolve("completion"));
    Files.writeString(completion.resolve("idem.bash"), bashCompletion(cl), StandardCharsets.UTF_8);
    Path man1 = Files.createDirectories(out.resolve("man").resolve("man1"));
    String date = LocalDate.now(ZoneOffset.UTC).toString();
    for (Map.Entry<String, String> page : manPages(cl, IdemCommand.Version.version(), date).entrySet()) {
      Files.writeString(man1.resolve(page.getKey()), page.getValue(), StandardCharsets.UTF_8);
    }
  }

  /** The bash (and zsh, through bashcompinit) completion script for every command and option. */
  static String bashCompletion(CommandLine cl) {
    return AutoComplete.bash("idem", cl);
  }

  /** File name to troff text, one page per command: {@code idem.1}, {@code idem-run.1}, {@code idem-pointer-show.1}. */
  static Map<String, String> manPages(CommandLine cl, String version, String date) {
    Map<String, String> pages = new LinkedHashMap<>();
    collect(cl, version, date, pages);
    return pages;
  }

  private static void collect(CommandLine cl, String version, String date, Map<String, String> pages) {
    String name = cl.getCommandSpec().qualifiedName("-");
    pages.put(name + ".1", manPage(cl.getCommandSpec(), name, version, date));
    for (CommandLine sub : cl.getSubcommands().values()) {
      collect(sub, version, date, pages);
    }
  }

  static String manPage(CommandSpec spec, String name, String version, String date) {
    StringBuilder b = new StringBuilder();
    b.append(".TH \"").append(name.toUpperCase(Locale.ROOT)).append("\" \"1\" \"").append(date)
        .append("\" \"idem ").append(roff(version)).append("\" \"idem Manual\"\n");
    b.append(".SH NAME\n").append(roff(name)).append(" \\- ").append(roff(firstSentence(spec))).append('\n');
    b.append(".SH SYNOPSIS\n.B ").append(roff(spec.qualifiedName(" "))).append('\n');
    b.append(roff(synopsis(spec))).append('\n');
    b.append(".SH DESCRIPTION\n");
    for (String para : spec.usageMessage().description()) {
      b.append(para.isEmpty() ? ".PP\n" : roff(para) + "\n");
    }
    if (!spec.options().isEmpty()) {
      b.append(".SH OPTIONS\n");
      for (OptionSpec o : spec.options()) {
        b.append(".TP\n.B ").append(roff(String.join(", ", o.names())));
        if (o.arity().max() > 0) {
          b.append(" \\fI").append(roff(o.paramLabel())).append("\\fR");
        }
        b.append('\n').append(roff(String.join(" ", o.description()))).append('\n');
      }
    }
    if (!spec.positionalParameters().isEmpty()) {
      b.append(".SH ARGUMENTS\n");
      for (PositionalParamSpec p : spec.positionalParameters()) {
        b.append(".TP\n.I ").append(roff(p.paramLabel())).append('\n')
            .append(roff(String.join(" ", p.description()))).append('\n');
      }
    }
    if (!spec.subcommands().isEmpty()) {
      b.append(".SH COMMANDS\n");
      for (Map.Entry<String, CommandLine> sub : spec.subcommands().entrySet()) {
        b.append(".TP\n.B ").append(roff(sub.getKey())).append('\n')
            .append(roff(firstSentence(sub.getValue().getCommandSpec()))).append(" See \\fB")
            .append(roff(sub.getValue().getCommandSpec().qualifiedName("-"))).append("\\fR(1).\n");
      }
    }
    b.append(".SH EXIT STATUS\n");
    for (Map.Entry<String, String> code : ExitCodes.helpTable().entrySet()) {
      b.append(".TP\n.B ").append(roff(code.getKey().strip())).append('\n').append(roff(code.getValue().strip())).append('\n');
    }
    b.append(".SH SEE ALSO\n");
    List<String> see = new ArrayList<>();
    if (spec.parent() != null) {
      see.add("\\fB" + roff(spec.parent().qualifiedName("-")) + "\\fR(1)");
    }
    for (CommandLine sub : spec.subcommands().values()) {
      see.add("\\fB" + roff(sub.getCommandSpec().qualifiedName("-")) + "\\fR(1)");
    }
    b.append(see.isEmpty() ? "\\fBidem\\fR(1)" : String.join(", ", see)).append('\n');
    return b.toString();
  }

  private static String synopsis(CommandSpec spec) {
    List<String> parts = new ArrayList<>();
    for (OptionSpec o : spec.options()) {
      String opt = o.longestName() + (o.arity().max() > 0 ? " " + o.paramLabel() : "");
      parts.add(o.required() ? opt : "[" + opt + "]");
    }
    for (PositionalParamSpec p : spec.positionalParameters()) {
      parts.add(p.paramLabel() + (p.arity().max() > 1 ? "..." : ""));
    }
    if (!spec.subcommands().isEmpty()) {
      parts.add("COMMAND");
    }
    return String.join(" ", parts);
  }

  private static String firstSentence(CommandSpec spec) {
    String[] d = spec.usageMessage().description();
    String text = d.length == 0 ? spec.name() : d[0];
    int dot = text.indexOf(". ");
    return dot < 0 ? text : text.substring(0, dot + 1);
  }

  /** Text made safe for troff: backslashes, hyphens, and a leading dot or quote that would read as a request. */
  static String roff(String s) {
    String t = s.replace("\\", "\\e").replace("-", "\\-");
    if (t.startsWith(".") || t.startsWith("'")) {
      t = "\\&" + t;
    }
    return t.replace("\n.", "\n\\&.").replace("\n'", "\n\\&'");
  }
}
