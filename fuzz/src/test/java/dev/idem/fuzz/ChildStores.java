package dev.idem.fuzz;

import dev.idem.core.Idem;
import dev.idem.core.store.ObjectStore;
import java.io.IOException;
import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.Payload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Opens a replica process's store from the arguments its backend gave the runner. */
final class ChildStores {
  private ChildStores() {}

  /**
   * Runs one publish and advance on a scratch store before the replica reports READY, so that class
   * loading and the first compilations do not make a replica JVM so slow that every thread has
   * finished before it makes its first call (its death step would then never come).
   */
  static void warmUp(Backend.Kind kind, List<String> args) throws Exception {
    if (kind != Backend.Kind.FS) {
      return;
    }
    Path scratch = Files.createTempDirectory("idem-fuzz-warmup");
    try (ObjectStore store = FsBackend.open(scratch, StepHook.NONE, null)) {
      Idem.publisher(store).writer("warmup").build().publish(RunSpec.of("warmup", new Window(60, 60), 1),
          Payload.ofBytes(new byte[] {1}));
    } finally {
      try (Stream<Path> s = Files.walk(scratch)) {
        for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  static ObjectStore open(Backend.Kind kind, List<String> args, StepHook hook) throws IOException {
    return switch (kind) {
      case FS -> FsBackend.openInChild(args, hook);
      case S3 -> S3Backend.openInChild(args);
      case MEMORY -> throw new UnsupportedOperationException(kind + " has no replica processes");
    };
  }
}
