package dev.idem.store.s3;

import dev.idem.core.store.CasResult;
import dev.idem.core.store.DeadlineExceededException;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.internal.client.S3Exception;
import java.io.IOException;
import java.util.Optional;

/** One way of keeping a pipeline's pointer in a bucket; see {@link PointerMode}. */
interface PointerProtocol {
  /** The largest pointer document accepted from the bucket. */
  int MAX_DOCUMENT = 64 * 1024;

  Optional<PointerState> read(String pipeline) throws IOException;

  /**
   * Compare-and-swap, every request made through {@code via}: the store's client, or a view of it
   * bounded by the caller's deadline ({@link S3Client#within}).
   *
   * @return BUSY also when the deadline ran out while S3 kept answering 409 ConditionalRequestConflict
   * @throws DeadlineExceededException when the deadline ran out on anything else
   *     (a server answering 503, or stalling); the pointer then holds the old or the new document, whole
   */
  CasResult compareAndSet(S3Client via, String pipeline, String expectedToken, Pointer next) throws IOException;

  /**
   * Whether {@code e} is S3's 409 ConditionalRequestConflict (another conditional write on the key in
   * flight), itself or as the last failure before a deadline ran out: the wait that makes a swap BUSY.
   */
  static boolean conditionalConflict(IOException e) {
    IOException last = e instanceof DeadlineExceededException d ? d.lastFailure() : e;
    return last instanceof S3Exception s && s.status() == 409;
  }
}
