package dev.idem.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code idem pointer}: groups {@code show}, {@code advance} and the operator's {@code rewind}. */
@Command(name = "pointer", mixinStandardHelpOptions = true, versionProvider = IdemCommand.Version.class,
    description = "Read or advance a pipeline's 'latest' pointer (it only moves forward), or rewind it: the one "
        + "way backwards, a recorded operator compare-and-swap.",
    subcommands = {PointerShowCommand.class, PointerAdvanceCommand.class, PointerRewindCommand.class})
final class PointerCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    throw new ParameterException(spec.commandLine(), "a subcommand is required: show, advance, rewind");
  }
}
