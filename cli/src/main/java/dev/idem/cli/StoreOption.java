package dev.idem.cli;

import dev.idem.core.store.ObjectStore;
import java.io.IOException;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code --store URI}, shared by every command that touches a store.
 *
 * <p>A writing command that falls back to the default {@code file:.idem} (neither {@code --store} nor
 * {@code IDEM_STORE} given) says so on stderr: in a pod with a forgotten variable that default is the
 * container's ephemeral disk, and the publish would otherwise look like a success. The store opened is
 * remembered so a failure's one line can name it ({@link #openedIn}).
 */
final class StoreOption {
  /** Commands that write to the store, by qualified name. */
  private static final Set<String> WRITING = Set.of("idem run", "idem publish", "idem pointer advance", "idem pointer rewind", "idem gc",
      "idem ack");

  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  @Option(names = "--store", paramLabel = "URI",
      description = "Store: file:PATH or s3://bucket/prefix (S3 reads the AWS_* environment). "
          + "Default: $IDEM_STORE, else file:.idem (writing commands then say so on stderr)")
  String uri;

  private String opened;

  ObjectStore open(CliContext ctx) throws IOException {
    String chosen = StoreUris.choose(uri, ctx.env());
    if (WRITING.contains(mixee.qualifiedName()) && StoreUris.DEFAULT.equals(chosen)
        && (uri == null || uri.isEmpty())) {
      mixee.commandLine().getErr().println("idem: no --store or IDEM_STORE given; writing to "
          + StoreUris.DEFAULT + " (the working directory)");
    }
    opened = chosen;
    return ctx.openStore(uri);
  }

  /** The store URI the command {@code cmd} opened, or {@code null} when it opened none. */
  static String openedIn(CommandLine cmd) {
    CommandSpec mixin = cmd.getCommandSpec().mixins().get("store");
    return mixin != null && mixin.userObject() instanceof StoreOption s ? s.opened : null;
  }
}
