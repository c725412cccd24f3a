package dev.idem.store.fs;

import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.ObjectStoreContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** Core's store contract (P1–P4, G1–G3), run against a fresh filesystem store per test. */
class FsObjectStoreContractTest extends ObjectStoreContract {
  @TempDir Path dir;

  @Override
  protected ObjectStore newStore() throws Exception {
    return FsObjectStore.open(dir.resolve("store"));
  }
}
