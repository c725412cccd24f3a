package dev.idem.cli.codegen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The processor on small command trees compiled here with the JDK's compiler: it writes the models of a
 * tree it reproduces, and an attribute or a tree it does not reproduce fails the compile with an error
 * naming it instead of a model that silently differs. The models of idem's own commands are checked
 * against picocli's in the cli module (CommandModelsTest).
 */
class CommandModelProcessorTest {
  @TempDir
  Path dir;

  record Compiled(boolean ok, List<String> errors, Path generated) {}

  @Test
  void process_topCommandWithSubcommands_writesTheirNamesSummariesAndModels() throws IOException {
    Compiled c = compile(Map.of(
        "Top", "@Command(name = \"top\", subcommands = {Sub.class}) public class Top {}",
        "Sub", "@Command(name = \"sub\", aliases = {\"s\"}, description = \"Does it.\") public class Sub {"
            + " @Option(names = \"--n\", description = \"How many.\") int n; }"));

    assertTrue(c.ok(), c.errors().toString());
    String source = Files.readString(c.generated());
    assertTrue(source.contains("static final String[] NAMES = {\"sub\"};"), source);
    assertTrue(source.contains("static final String[][] ALIASES = {{\"s\"}};"), source);
    assertTrue(source.contains("OptionSpec.builder(new String[] {\"--n\"}).paramLabel(\"<n>\")"), source);
    assertTrue(source.contains(".withToString(\"field int p.Sub.n\")"), source);
  }

  @Test
  void process_optionWithAnAttributeItDoesNotReproduce_failsTheCompileNamingIt() throws IOException {
    Compiled c = compile(Map.of(
        "Top", "@Command(name = \"top\", subcommands = {Sub.class}) public class Top {}",
        "Sub", "@Command(name = \"sub\") public class Sub { @Option(names = \"--n\", split = \",\") int n; }"));

    assertFalse(c.ok());
    assertEquals(1, c.errors().size(), c.errors().toString());
    assertTrue(c.errors().get(0).contains("n: an @Option attribute the command-model processor does not reproduce"),
        c.errors().toString());
  }

  @Test
  void process_twoTopCommands_failsTheCompile() throws IOException {
    Compiled c = compile(Map.of(
        "One", "@Command(name = \"one\") public class One {}",
        "Two", "@Command(name = \"two\") public class Two {}"));

    assertFalse(c.ok());
    assertTrue(c.errors().toString().contains("expected one top command"), c.errors().toString());
  }

  /** Compiles each class (simple name to declaration) in package {@code p} with the processor. */
  private Compiled compile(Map<String, String> classes) throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    Path src = Files.createDirectories(dir.resolve("src/p"));
    Path out = Files.createDirectories(dir.resolve("out"));
    Path gen = Files.createDirectories(dir.resolve("gen"));
    List<Path> files = new ArrayList<>();
    for (Map.Entry<String, String> e : classes.entrySet()) {
      files.add(Files.writeString(src.resolve(e.getKey() + ".java"), "package p;\nimport picocli.CommandLine.Command;\n"
          + "import picocli.CommandLine.Option;\n" + e.getValue() + "\n"));
    }
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    try (StandardJavaFileManager fm = javac.getStandardFileManager(diagnostics, null, null)) {
      List<String> options = List.of("-classpath", System.getProperty("java.class.path"), "-d", out.toString(),
          "-s", gen.toString(), "-proc:only");
      JavaCompiler.CompilationTask task = javac.getTask(new StringWriter(), fm, diagnostics, options, null,
          fm.getJavaFileObjectsFromPaths(files));
      task.setProcessors(List.of(new CommandModelProcessor()));
      boolean ok = task.call();
      List<String> errors = diagnostics.getDiagnostics().stream().filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
          .map(d -> d.getMessage(null)).toList();
      return new Compiled(ok, errors, gen.resolve("p/CommandModels.java"));
    }
  }
}
