package dev.idem.fuzz;

import dev.idem.core.store.ObjectStore;
import java.io.IOException;
import java.util.List;

/** Opens a replica process's store from the arguments its backend gave the runner. */
final class ChildStores {
  private ChildStores() {}

  static ObjectStore open(Backend.Kind kind, List<String> args, StepHook hook) throws IOException {
    return switch (kind) {
      case FS -> FsBackend.openInChild(args, hook);
      case S3 -> S3Backend.openInChild(args);
      case MEMORY -> throw new UnsupportedOperationException(kind + " has no replica processes");
    };
  }
}
