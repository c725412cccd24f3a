package dev.idem.store.s3;

import dev.idem.core.store.CasResult;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import java.io.IOException;
import java.util.Optional;

/** One way of keeping a pipeline's pointer in a bucket; see {@link PointerMode}. */
interface PointerProtocol {
  /** The largest pointer document accepted from the bucket. */
  int MAX_DOCUMENT = 64 * 1024;

  Optional<PointerState> read(String pipeline) throws IOException;

  CasResult compareAndSet(String pipeline, String expectedToken, Pointer next) throws IOException;
}
