package dev.idem.cli;

import dev.idem.core.store.ObjectStore;
import java.io.IOException;
import picocli.CommandLine.Option;

/** {@code --store URI}, shared by every command that touches a store. */
final class StoreOption {
  @Option(names = "--store", paramLabel = "URI",
      description = "Store: file:PATH or s3://bucket/prefix (S3 reads the AWS_* environment). "
          + "Default: $IDEM_STORE, else file:.idem")
  String uri;

  ObjectStore open(CliContext ctx) throws IOException {
    return ctx.openStore(uri);
  }
}
