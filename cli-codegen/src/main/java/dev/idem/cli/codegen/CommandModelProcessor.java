package dev.idem.cli.codegen;

import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.MirroredTypeException;
import javax.lang.model.type.MirroredTypesException;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.tools.Diagnostic;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * Writes {@code CommandModels} beside the top command while the command line compiles: the picocli model
 * of every annotated command as plain code (picocli's programmatic {@code CommandSpec}/{@code OptionSpec}
 * API, options bound to fields by generated switch statements), so that starting idem reads no annotation
 * and sets no field by reflection. The annotations stay the only source; nothing generated is checked in.
 *
 * <p>The top command is the one {@code @Command} class no other names as a subcommand; its subcommands
 * are its {@code subcommands} attribute, in that order. The generated class gives their names, aliases
 * and summaries (what the top-level help and suggestions need) and each in full, so that a run builds
 * only the command it invokes. Members are read as picocli reads them (fields in declaration order,
 * mixins where they are declared, the standard help options last). A command with an {@code @ArgGroup}
 * (and so every command above one) is not generated: its class is handed to picocli, which builds it from
 * its annotations. An annotation attribute this processor does not reproduce is a compile error naming
 * it, never dropped; {@code CommandModelsTest} in the cli module compares the generated models with the
 * ones picocli builds from the annotations, attribute by attribute, help page by help page, parse by
 * parse.
 */
public final class CommandModelProcessor extends AbstractProcessor {
  private static final String HEADER = """
      package %s;

      import java.time.Duration;
      import java.time.Instant;
      import java.util.List;
      import picocli.CommandLine;
      import picocli.CommandLine.Model.CommandSpec;
      import picocli.CommandLine.Model.IGetter;
      import picocli.CommandLine.Model.ISetter;
      import picocli.CommandLine.Model.OptionSpec;
      import picocli.CommandLine.Model.PositionalParamSpec;

      /**
       * Generated from the annotated command classes by the command-model processor (module cli-codegen)
       * as this module compiles: do not edit. The picocli model of every idem command that has no argument
       * group, built with picocli's programmatic API, so that starting idem reads no annotation and writes
       * no field by reflection. CommandModelsTest compares the models it builds with picocli's annotated
       * ones: every attribute, help page and parse.
       */
      @SuppressWarnings({"unchecked", "rawtypes"})
      final class CommandModels {
        private CommandModels() {}

      """;

  /** The standard help options, as picocli's own mixin declares them (names resolved at run time like picocli's). */
  private static final String HELP = """
        /** What {@code mixinStandardHelpOptions = true} adds, without picocli reading its own mixin's annotations. */
        private static CommandSpec standardHelpOptions() {
          CommandSpec s = CommandSpec.wrapWithoutInspection(new Object());
          s.addOption(OptionSpec.builder("${picocli.help.name.0:--h}", "${picocli.help.name.1:---help}").usageHelp(true)
              .descriptionKey("mixinStandardHelpOptions.help").description("Show this help message and exit.")
              .paramLabel("<helpRequested>").type(boolean.class).initialValue(false).prompt("")
              .withToString("field boolean picocli.CommandLine$AutoHelpMixin.helpRequested").build());
          s.addOption(OptionSpec.builder("${picocli.version.name.0:--V}", "${picocli.version.name.1:---version}").versionHelp(true)
              .descriptionKey("mixinStandardHelpOptions.version").description("Print version information and exit.")
              .paramLabel("<versionRequested>").type(boolean.class).initialValue(false).prompt("")
              .withToString("field boolean picocli.CommandLine$AutoHelpMixin.versionRequested").build());
          return s;
        }

      """;

  private String pkg;
  private final StringBuilder methods = new StringBuilder();
  private final List<VariableElement> bound = new ArrayList<>();
  private final Map<TypeElement, String> emitted = new LinkedHashMap<>();
  private boolean written;

  @Override
  public Set<String> getSupportedAnnotationTypes() {
    return Set.of(Command.class.getCanonicalName());
  }

  @Override
  public SourceVersion getSupportedSourceVersion() {
    return SourceVersion.latestSupported();
  }

  @Override
  public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
    if (written || round.processingOver()) {
      return false;
    }
    List<TypeElement> commands = new ArrayList<>();
    Set<String> named = new HashSet<>();
    for (Element e : round.getElementsAnnotatedWith(Command.class)) {
      if (e instanceof TypeElement t) {
        commands.add(t);
        for (TypeMirror sub : classes(() -> t.getAnnotation(Command.class).subcommands())) {
          named.add(sub.toString());
        }
      }
    }
    List<TypeElement> roots = commands.stream().filter(t -> !named.contains(t.getQualifiedName().toString())).toList();
    if (commands.isEmpty()) {
      return false;
    }
    written = true;
    if (roots.size() != 1) {
      processingEnv.getMessager().printMessage(Diagnostic.Kind.ERROR,
          "command models: expected one top command (a @Command no other names as a subcommand), found " + roots);
      return false;
    }
    TypeElement root = roots.get(0);
    try {
      pkg = processingEnv.getElementUtils().getPackageOf(root).getQualifiedName().toString();
      String source = generate(root);
      try (Writer w = processingEnv.getFiler().createSourceFile(pkg + ".CommandModels", root).openWriter()) {
        w.write(source);
      }
    } catch (Unsupported e) {
      processingEnv.getMessager().printMessage(Diagnostic.Kind.ERROR, "command models: " + e.getMessage(), e.element);
    } catch (IOException e) {
      processingEnv.getMessager().printMessage(Diagnostic.Kind.ERROR, "command models: cannot write: " + e, root);
    }
    return false;
  }

  /** The source of {@code CommandModels.java}. */
  private String generate(TypeElement root) {
    command(root, false);
    List<TypeElement> subs = new ArrayList<>();
    for (TypeMirror m : classes(() -> root.getAnnotation(Command.class).subcommands())) {
      subs.add(element(m));
    }
    StringBuilder index = new StringBuilder();
    index.append("  /** The subcommands of ").append(root.getAnnotation(Command.class).name())
        .append(", in the order its annotation lists them. */\n");
    index.append("  static final String[] NAMES = {");
    List<String> names = new ArrayList<>();
    for (TypeElement c : subs) {
      names.add(literal(c.getAnnotation(Command.class).name()));
    }
    index.append(String.join(", ", names)).append("};\n\n");
    index.append("  /** The aliases of each subcommand, in the order of NAMES. */\n  static final String[][] ALIASES = {");
    List<String> aliases = new ArrayList<>();
    for (TypeElement c : subs) {
      aliases.add("{" + literals(c.getAnnotation(Command.class).aliases()) + "}");
    }
    index.append(String.join(", ", aliases)).append("};\n\n");
    index.append("  /** Subcommand {@code i} as the top-level help lists it: names, header, description. */\n");
    index.append("  static CommandSpec summary(int i) {\n    CommandSpec s = CommandSpec.create();\n    switch (i) {\n");
    for (int i = 0; i < subs.size(); i++) {
      Command a = subs.get(i).getAnnotation(Command.class);
      index.append("      case ").append(i).append(":\n        s.name(").append(literal(a.name())).append(')');
      if (a.aliases().length > 0) {
        index.append(".aliases(").append(literals(a.aliases())).append(')');
      }
      index.append(";\n        s.usageMessage()");
      if (a.header().length > 0) {
        index.append(".header(").append(literals(a.header())).append(')');
      }
      index.append(".description(").append(literals(a.description())).append(").hidden(").append(a.hidden())
          .append(");\n        return s;\n");
    }
    index.append("      default: throw new IndexOutOfBoundsException(i);\n    }\n  }\n\n");
    index.append("  /**\n   * Subcommand {@code i} in full: its generated {@code CommandSpec}, or its class where the model is\n"
        + "   * not generated (picocli then builds it from the annotations); either goes to {@code addSubcommand}.\n   */\n");
    index.append("  static Object command(int i) {\n    switch (i) {\n");
    for (int i = 0; i < subs.size(); i++) {
      TypeElement c = subs.get(i);
      index.append("      case ").append(i).append(": return ");
      if (generatable(c)) {
        index.append(command(c, true)).append("(new ").append(sourceName(c)).append("())");
      } else {
        index.append(sourceName(c)).append(".class");
      }
      index.append(";\n");
    }
    index.append("      default: throw new IndexOutOfBoundsException(i);\n    }\n  }\n\n");
    return String.format(HEADER, pkg) + index + methods + HELP + binding() + "}\n";
  }

  /** Whether the class (and its subcommands) can be generated: no argument groups anywhere. */
  private boolean generatable(TypeElement c) {
    for (VariableElement f : fields(c)) {
      if (f.getAnnotation(ArgGroup.class) != null
          || (f.getAnnotation(Mixin.class) != null && !generatable(element(f.asType())))) {
        return false;
      }
    }
    Command a = c.getAnnotation(Command.class);
    if (a != null) {
      for (TypeMirror sub : classes(a::subcommands)) {
        if (!generatable(element(sub))) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * Emits the builder method of a command class once; its name. {@code withSubcommands} false: the top
   * command, whose subcommands the caller adds one by one.
   */
  private String command(TypeElement c, boolean withSubcommands) {
    String existing = emitted.get(c);
    if (existing != null) {
      return existing;
    }
    String method = methodName(c);
    emitted.put(c, method);
    Command a = c.getAnnotation(Command.class);
    checkCommand(c, a);
    StringBuilder b = new StringBuilder();
    b.append("  /** {@code ").append(a.name()).append("}, as ").append(c.getSimpleName())
        .append("'s annotations declare it. */\n");
    b.append("  static CommandSpec ").append(method).append('(').append(sourceName(c)).append(" o) {\n");
    b.append("    CommandSpec s = CommandSpec.wrapWithoutInspection(o);\n");
    b.append("    s.name(").append(literal(a.name())).append(");\n");
    if (a.aliases().length > 0) {
      b.append("    s.aliases(").append(literals(a.aliases())).append(");\n");
    }
    if (a.version().length > 0) {
      b.append("    s.version(").append(literals(a.version())).append(");\n");
    }
    TypeMirror versionProvider = type(a::versionProvider);
    if (!picocli(versionProvider, "NoVersionProvider")) {
      b.append("    s.versionProvider(new ").append(sourceName(versionProvider)).append("());\n");
    }
    usage(b, a);
    if (withSubcommands) {
      for (TypeMirror m : classes(a::subcommands)) {
        TypeElement sub = element(m);
        String subMethod = command(sub, true);
        b.append("    s.addSubcommand(").append(literal(sub.getAnnotation(Command.class).name())).append(", new CommandLine(")
            .append(subMethod).append("(new ").append(sourceName(sub)).append("())));\n");
      }
    }
    members(b, c);
    if (a.mixinStandardHelpOptions()) {
      b.append("    s.addMixin(\"mixinStandardHelpOptions\", standardHelpOptions());\n");
    }
    b.append("    return s;\n  }\n\n");
    methods.append(b);
    return method;
  }

  /** The usage message attributes the annotation sets (picocli's defaults are left alone). */
  private static void usage(StringBuilder b, Command a) {
    List<String> calls = new ArrayList<>();
    if (a.description().length > 0) {
      calls.add("description(" + literals(a.description()) + ")");
    }
    if (a.header().length > 0) {
      calls.add("header(" + literals(a.header()) + ")");
    }
    if (a.footer().length > 0) {
      calls.add("footer(" + literals(a.footer()) + ")");
    }
    if (!a.footerHeading().isEmpty()) {
      calls.add("footerHeading(" + literal(a.footerHeading()) + ")");
    }
    if (!a.headerHeading().isEmpty()) {
      calls.add("headerHeading(" + literal(a.headerHeading()) + ")");
    }
    if (!a.descriptionHeading().isEmpty()) {
      calls.add("descriptionHeading(" + literal(a.descriptionHeading()) + ")");
    }
    if (!a.optionListHeading().isEmpty()) {
      calls.add("optionListHeading(" + literal(a.optionListHeading()) + ")");
    }
    if (!a.parameterListHeading().isEmpty()) {
      calls.add("parameterListHeading(" + literal(a.parameterListHeading()) + ")");
    }
    if (a.hidden()) {
      calls.add("hidden(true)");
    }
    if (a.showDefaultValues()) {
      calls.add("showDefaultValues(true)");
    }
    if (!calls.isEmpty()) {
      b.append("    s.usageMessage()");
      for (String call : calls) {
        b.append("\n        .").append(call);
      }
      b.append(";\n");
    }
  }

  /** Fails generation for a command attribute the generated code would not reproduce. */
  private void checkCommand(TypeElement c, Command a) {
    if (!a.sortOptions() || a.abbreviateSynopsis() || a.customSynopsis().length > 0 || !a.synopsisHeading().equals("Usage: ")
        || !a.commandListHeading().equals("Commands:%n") || a.exitCodeList().length > 0 || !a.exitCodeListHeading().isEmpty()
        || !a.resourceBundle().isEmpty() || a.helpCommand() || a.subcommandsRepeatable() || a.scope() != ScopeType.LOCAL
        || a.usageHelpWidth() != 80 || a.usageHelpAutoWidth() || a.requiredOptionMarker() != ' ' || !a.sortSynopsis()
        || !a.separator().equals("=") || !picocli(type(a::defaultValueProvider), "NoDefaultProvider")
        || !picocli(type(a::modelTransformer), "NoOpModelTransformer") || a.showAtFileInUsageHelp()
        || a.showEndOfOptionsDelimiterInUsageHelp() || a.exitCodeOnSuccess() != 0 || a.exitCodeOnInvalidInput() != 2
        || a.exitCodeOnExecutionException() != 1 || a.exitCodeOnUsageHelp() != 0 || a.exitCodeOnVersionHelp() != 0
        || !a.synopsisSubcommandLabel().equals("[COMMAND]") || !a.addMethodSubcommands()) {
      throw new Unsupported(c, "an @Command attribute the command-model processor does not reproduce");
    }
  }

  /** Emits the builder method of a mixin class once; its name. */
  private String mixin(TypeElement c) {
    String existing = emitted.get(c);
    if (existing != null) {
      return existing;
    }
    String method = methodName(c);
    emitted.put(c, method);
    if (c.getAnnotation(Command.class) != null) {
      throw new Unsupported(c, "a mixin with @Command");
    }
    StringBuilder b = new StringBuilder();
    b.append("  /** The mixin ").append(c.getSimpleName()).append(", as its annotations declare it. */\n");
    b.append("  static CommandSpec ").append(method).append('(').append(sourceName(c)).append(" o) {\n");
    b.append("    CommandSpec s = CommandSpec.wrapWithoutInspection(o);\n");
    members(b, c);
    b.append("    return s;\n  }\n\n");
    methods.append(b);
    return method;
  }

  /** The annotated members of {@code c} in declaration order, as picocli's reflection adds them. */
  private void members(StringBuilder b, TypeElement c) {
    if (!c.getSuperclass().toString().equals("java.lang.Object")) {
      throw new Unsupported(c, "a command or mixin with a superclass");
    }
    for (VariableElement f : fields(c)) {
      if (f.getAnnotation(ArgGroup.class) != null || f.getAnnotation(ParentCommand.class) != null
          || f.getAnnotation(Unmatched.class) != null) {
        throw new Unsupported(f, "@ArgGroup, @ParentCommand or @Unmatched");
      }
      Spec spec = f.getAnnotation(Spec.class);
      if (spec != null && spec.value() == Spec.Target.SELF) {
        b.append("    o.").append(f.getSimpleName()).append(" = s;\n");
      }
      Mixin mixin = f.getAnnotation(Mixin.class);
      if (mixin != null) {
        TypeElement type = element(f.asType());
        String name = mixin.name().isEmpty() ? f.getSimpleName().toString() : mixin.name();
        b.append("    if (o.").append(f.getSimpleName()).append(" == null) { o.").append(f.getSimpleName()).append(" = new ")
            .append(sourceName(type)).append("(); }\n");
        b.append("    s.addMixin(").append(literal(name)).append(", ").append(mixin(type)).append("(o.")
            .append(f.getSimpleName()).append(").withToString(")
            .append(literal("mixin from member " + binaryName(type) + " " + binaryName(c) + "." + f.getSimpleName()))
            .append("));\n");
        for (VariableElement mf : fields(type)) {
          Spec ms = mf.getAnnotation(Spec.class);
          if (ms != null && ms.value() == Spec.Target.MIXEE) {
            b.append("    o.").append(f.getSimpleName()).append('.').append(mf.getSimpleName()).append(" = s;\n");
          }
        }
      }
      if (f.getAnnotation(Option.class) != null) {
        b.append("    s.addOption(option(").append(option(f)).append(", o, ").append(bound.size()).append("));\n");
        bound.add(f);
      }
      if (f.getAnnotation(Parameters.class) != null) {
        b.append("    s.addPositional(positional(").append(positional(f)).append(", o, ").append(bound.size()).append("));\n");
        bound.add(f);
      }
    }
  }

  private String option(VariableElement f) {
    Option a = f.getAnnotation(Option.class);
    if (a.help() || a.usageHelp() || a.versionHelp() || a.negatable() || a.interactive() || a.order() != -1 || !a.split().isEmpty()
        || !a.fallbackValue().isEmpty() || a.scope() != ScopeType.LOCAL || a.hideParamSyntax() || !a.descriptionKey().isEmpty()
        || a.showDefaultValue() != Help.Visibility.ON_DEMAND || !a.mapFallbackValue().equals("__unspecified__")
        || !picocli(type(a::completionCandidates), "NoCompletionCandidates") || !a.prompt().isEmpty()
        || !picocli(type(a::parameterConsumer), "NullParameterConsumer") || !picocli(type(a::preprocessor), "NoOpParameterPreprocessor")) {
      throw new Unsupported(f, "an @Option attribute the command-model processor does not reproduce");
    }
    StringBuilder b = new StringBuilder("OptionSpec.builder(new String[] {").append(literals(a.names())).append("})");
    common(b, f, a.paramLabel(), a.arity(), a.required(), a.hidden(), a.defaultValue(), a.description(),
        classes(a::converter), classes(a::type));
    return b.toString();
  }

  private String positional(VariableElement f) {
    Parameters a = f.getAnnotation(Parameters.class);
    if (a.interactive() || !a.split().isEmpty() || a.hideParamSyntax() || !a.descriptionKey().isEmpty()
        || a.showDefaultValue() != Help.Visibility.ON_DEMAND || a.scope() != ScopeType.LOCAL
        || !picocli(type(a::completionCandidates), "NoCompletionCandidates") || !a.prompt().isEmpty()
        || !picocli(type(a::parameterConsumer), "NullParameterConsumer") || !picocli(type(a::preprocessor), "NoOpParameterPreprocessor")) {
      throw new Unsupported(f, "a @Parameters attribute the command-model processor does not reproduce");
    }
    // As picocli infers them: no index is every position; a parameter is required when its arity needs
    // a value, and without an arity a single-valued field needs one and a list none.
    String index = a.index().isEmpty() ? "*" : a.index();
    boolean required = a.arity().isEmpty() ? !isList(f.asType()) : !a.arity().startsWith("0");
    StringBuilder b = new StringBuilder("PositionalParamSpec.builder().index(").append(literal(index)).append(')');
    common(b, f, a.paramLabel(), a.arity(), required, a.hidden(), a.defaultValue(), a.description(),
        classes(a::converter), classes(a::type));
    return b.toString();
  }

  /** The attributes options and positional parameters share, as picocli keeps them. */
  private void common(StringBuilder b, VariableElement f, String paramLabel, String arity, boolean required, boolean hidden,
      String defaultValue, String[] description, List<TypeMirror> converters, List<TypeMirror> types) {
    if (!types.isEmpty()) {
      throw new Unsupported(f, "an explicit type attribute");
    }
    if (paramLabel.contains("${")) {
      throw new Unsupported(f, "a paramLabel with variables");
    }
    String indent = "\n        ";
    b.append(".paramLabel(").append(literal(paramLabel.isEmpty() ? "<" + f.getSimpleName() + ">" : paramLabel.trim())).append(')');
    if (!arity.isEmpty()) {
      b.append(".arity(").append(literal(arity)).append(')');
    }
    if (required) {
      b.append(".required(true)");
    }
    if (hidden) {
      b.append(".hidden(true)");
    }
    if (!defaultValue.equals("__no_default_value__")) {
      b.append(".defaultValue(").append(defaultValue.equals("_NULL_") ? "null" : literal(defaultValue)).append(')');
    }
    b.append(indent).append(".description(").append(literals(description)).append(')');
    TypeMirror t = f.asType();
    if (t.getKind() == TypeKind.ARRAY) {
      throw new Unsupported(f, "an array field");
    }
    String raw = t.getKind().isPrimitive() ? t.toString() : sourceName(processingEnv.getTypeUtils().erasure(t));
    b.append(indent).append(".type(").append(raw).append(".class)");
    if (t instanceof DeclaredType d && !d.getTypeArguments().isEmpty()) {
      List<String> aux = new ArrayList<>();
      for (TypeMirror arg : d.getTypeArguments()) {
        aux.add(sourceName(arg) + ".class");
      }
      b.append(".auxiliaryTypes(").append(String.join(", ", aux)).append(')');
    }
    if (!converters.isEmpty()) {
      List<String> cs = new ArrayList<>();
      for (TypeMirror c : converters) {
        cs.add("new " + sourceName(c) + "()");
      }
      b.append(".converters(").append(String.join(", ", cs)).append(')');
    }
    String typeName = t.toString().replace("java.lang.", "");
    b.append(".withToString(").append(literal("field " + typeName + " " + binaryName((TypeElement) f.getEnclosingElement())
        + "." + f.getSimpleName())).append(')');
  }

  /**
   * The one getter/setter class of every bound field: a switch over the field's number (its place in
   * the order the builder methods above bound them), no reflection, one class to load.
   */
  private String binding() {
    StringBuilder b = new StringBuilder();
    b.append("""
          /** An option or parameter bound to its field, its initial value the field's, and descriptionKey and prompt as an annotation leaves them. */
          private static OptionSpec option(OptionSpec.Builder b, Object owner, int field) {
            Fields f = new Fields(owner, field);
            return b.descriptionKey("").prompt("").initialValue(f.get()).getter(f).setter(f).build();
          }

          private static PositionalParamSpec positional(PositionalParamSpec.Builder b, Object owner, int field) {
            Fields f = new Fields(owner, field);
            return b.descriptionKey("").prompt("").initialValue(f.get()).getter(f).setter(f).build();
          }

          /** Reads and writes the option and parameter fields by number. */
          private static final class Fields implements IGetter, ISetter {
            private final Object o;
            private final int field;

            Fields(Object o, int field) {
              this.o = o;
              this.field = field;
            }

            @Override
            public <T> T get() {
              switch (field) {
        """);
    for (int i = 0; i < bound.size(); i++) {
      VariableElement f = bound.get(i);
      b.append("        case ").append(i).append(": return (T) (Object) ((").append(sourceName((TypeElement) f.getEnclosingElement()))
          .append(") o).").append(f.getSimpleName()).append(";\n");
    }
    b.append("        default: throw new IllegalStateException(\"no field \" + field);\n      }\n    }\n\n");
    b.append("    @Override\n    public <T> T set(T value) {\n      T old = get();\n      switch (field) {\n");
    for (int i = 0; i < bound.size(); i++) {
      VariableElement f = bound.get(i);
      b.append("        case ").append(i).append(": ((").append(sourceName((TypeElement) f.getEnclosingElement())).append(") o).")
          .append(f.getSimpleName()).append(" = (").append(boxedSourceName(f)).append(") value; break;\n");
    }
    b.append("        default: throw new IllegalStateException(\"no field \" + field);\n      }\n      return old;\n    }\n  }\n");
    return b.toString();
  }

  private boolean isList(TypeMirror t) {
    return t instanceof DeclaredType && sourceName(processingEnv.getTypeUtils().erasure(t)).equals("List");
  }

  private static List<VariableElement> fields(TypeElement c) {
    List<VariableElement> fields = new ArrayList<>();
    for (Element e : c.getEnclosedElements()) {
      if (e.getKind() == ElementKind.FIELD) {
        fields.add((VariableElement) e);
      }
    }
    return fields;
  }

  private TypeElement element(TypeMirror t) {
    return (TypeElement) processingEnv.getTypeUtils().asElement(t);
  }

  private String binaryName(TypeElement t) {
    return processingEnv.getElementUtils().getBinaryName(t).toString();
  }

  private static String methodName(TypeElement c) {
    String n = c.getSimpleName().toString();
    n = n.endsWith("Command") ? n.substring(0, n.length() - "Command".length()) : n;
    return Character.toLowerCase(n.charAt(0)) + n.substring(1);
  }

  private String sourceName(TypeMirror t) {
    return sourceName(element(t));
  }

  /** As the generated file, in the commands' package and importing java.time's two types and List, names a class. */
  private String sourceName(TypeElement c) {
    String name = c.getQualifiedName().toString();
    String p = processingEnv.getElementUtils().getPackageOf(c).getQualifiedName().toString();
    if (p.equals(pkg) || p.equals("java.lang") || name.equals("java.time.Duration") || name.equals("java.time.Instant")
        || name.equals("java.util.List")) {
      return name.substring(p.length() + 1);
    }
    return name;
  }

  private String boxedSourceName(VariableElement f) {
    TypeMirror t = f.asType();
    if (t.getKind().isPrimitive()) {
      return switch (t.getKind()) {
        case INT -> "Integer";
        case LONG -> "Long";
        case BOOLEAN -> "Boolean";
        default -> throw new Unsupported(f, "a field of primitive type " + t);
      };
    }
    if (t instanceof DeclaredType d && d.getTypeArguments().isEmpty()) {
      return sourceName(t);
    }
    if (t instanceof DeclaredType d && sourceName(d).equals("List") && d.getTypeArguments().get(0) instanceof DeclaredType arg) {
      return "List<" + sourceName(arg) + ">";
    }
    throw new Unsupported(f, "a field of type " + t);
  }

  /** A Class-valued annotation attribute, which the compiler gives as a type mirror. */
  private static TypeMirror type(Supplier<Class<?>> attribute) {
    try {
      Class<?> c = attribute.get();
      throw new IllegalStateException("a class attribute read as a class: " + c);
    } catch (MirroredTypeException e) {
      return e.getTypeMirror();
    }
  }

  /** A Class[]-valued annotation attribute, as type mirrors. */
  private static List<TypeMirror> classes(Supplier<Class<?>[]> attribute) {
    try {
      Class<?>[] c = attribute.get();
      if (c.length == 0) {
        return List.of();
      }
      throw new IllegalStateException("class attributes read as classes");
    } catch (MirroredTypesException e) {
      return List.copyOf(e.getTypeMirrors());
    }
  }

  static String literals(String[] values) {
    List<String> out = new ArrayList<>();
    for (String v : values) {
      out.add(literal(v));
    }
    return String.join(", ", out);
  }

  static String literal(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char ch : s.toCharArray()) {
      switch (ch) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\t' -> b.append("\\t");
        default -> {
          if (ch < 0x20 || ch > 0x7e) {
            b.append(String.format("\\u%04x", (int) ch));
          } else {
            b.append(ch);
          }
        }
      }
    }
    return b.append('"').toString();
  }

  /** Whether {@code t} is picocli's nested class of that name (an annotation attribute's "none" value). */
  private static boolean picocli(TypeMirror t, String simpleName) {
    return t.toString().equals("picocli.CommandLine." + simpleName);
  }

  /** An annotation attribute or member the generated code would not reproduce: a compile error on it. */
  private static final class Unsupported extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final transient Element element;

    Unsupported(Element element, String what) {
      super(element + ": " + what + "; teach the command-model processor to reproduce it");
      this.element = element;
    }
  }
}
