package dev.idem.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code idem pointer}: groups {@code show} and {@code advance}. */
@Command(name = "pointer", mixinStandardHelpOptions = true, versionProvider = IdemCommand.Version.class,
    description = "Read or advance a pipeline's 'latest' pointer (it only ever moves forward).",
    subcommands = {PointerShowCommand.class, PointerAdvanceCommand.class})
final class PointerCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    throw new ParameterException(spec.commandLine(), "a subcommand is required: show, advance");
  }
}
