package dev.idem.store.s3;

import dev.idem.store.s3.internal.client.RequestBody;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.internal.client.S3Client.Condition;
import dev.idem.store.s3.internal.client.WriteResult;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * Writes a small document as a new object under a name drawn for it (16 random hex digits), never
 * over another: the records the store only ever adds beside each other (acknowledgements, claims). It
 * exists so that each is created the one way every publish relies on, {@code If-None-Match: *}, with
 * one rule for the races that condition reports.
 *
 * <p>A first 412 means the name was drawn twice: another is drawn. A 412 after the client retried may
 * be this call's own earlier attempt, which landed without its reply: it is taken as written. A 409
 * means a write to the name is in flight: another name. Each PUT is atomic, so a reader sees a whole
 * document or none; a failure leaves no object, or this one whole.
 */
final class NewObjects {
  static final int ATTEMPTS = 5;

  private NewObjects() {}

  /**
   * Creates {@code body} at {@code keyOf.apply(id)} for a fresh {@code id} of 16 lowercase hex digits.
   *
   * @param what what is written, for errors ({@code the acknowledgement of KEY})
   * @return the id drawn
   * @throws IOException when the bucket is missing, the server failed, or {@value #ATTEMPTS} names were
   *     all taken; no object of this call's is left, or one whole
   */
  static String create(S3Client client, String bucket, Function<String, String> keyOf, byte[] body, String what)
      throws IOException {
    for (int attempt = 1; ; attempt++) {
      String id = String.format("%016x", ThreadLocalRandom.current().nextLong());
      String key = keyOf.apply(id);
      WriteResult r;
      try {
        r = client.put(bucket, key, RequestBody.ofBytes(body), Condition.ifNoneMatch(), Map.of());
      } catch (IOException e) {
        if (!PointerProtocol.conditionalConflict(e) || attempt == ATTEMPTS) {
          throw e;
        }
        continue;
      }
      if (r.status() == WriteResult.Status.WRITTEN
          || (r.status() == WriteResult.Status.PRECONDITION_FAILED && r.attempts() > 1)) {
        return id;
      }
      if (r.status() == WriteResult.Status.NOT_FOUND) {
        throw new IOException("could not record " + what + ": bucket " + bucket + " not found");
      }
      if (attempt == ATTEMPTS) {
        throw new IOException("could not record " + what + " at s3://" + bucket + "/" + key + ": " + ATTEMPTS
            + " random names were all taken");
      }
    }
  }
}
