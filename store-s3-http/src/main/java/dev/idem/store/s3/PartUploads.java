package dev.idem.store.s3;

import dev.idem.core.Sha256;
import dev.idem.core.store.Payload;
import dev.idem.store.s3.internal.client.RequestBody;
import dev.idem.store.s3.internal.client.S3Client;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32C;

/**
 * Sends the parts of one multipart upload, at most {@code parallelism} at a time, each checked against
 * the checksums taken when the payload was hashed, so {@link CreateOnlyUpload} can refuse a payload that
 * changed under it before anything becomes visible.
 *
 * <h2>Protocol</h2>
 *
 * Each part in flight owns one part-sized buffer from a pool of at most {@code parallelism} (allocated
 * on first need), so parts take at most {@code parallelism × partSize} bytes of memory. A payload that
 * {@linkplain Payload#readsRanges() reads ranges} (a file) has each part's task read its own range; a
 * stream payload is read in order by the calling thread, which fills one free buffer after another.
 * Either way, once a part is in its buffer, its task checks that it has the length and the CRC32C
 * ({@link ContentChecksums}) the same bytes had when the payload was hashed, and only then sends it as
 * the upload's {@link UploadPlan} says:
 *
 * <ul>
 *   <li>to an {@code https} endpoint, {@code UNSIGNED-PAYLOAD} with that CRC32C in {@code
 *       x-amz-checksum-crc32c} ({@link RequestBody#ofPart}, {@link UploadPlan.Body#CRC32C_OVER_TLS}): TLS
 *       authenticates the body, and no SHA-256 of the part is computed;
 *   <li>to a plain {@code http} one, with the part's SHA-256 signed as the payload hash as well ({@link
 *       RequestBody#ofSignedPart}, {@link UploadPlan.Body#SIGNED_SHA256}), since nothing else would stop a
 *       man in the middle from rewriting a part to other bytes of the same CRC32C. That SHA-256 is the one
 *       the hash pass took of the part's range ({@link UploadPlan.PartSha256#IN_HASH_PASS}), so the server
 *       checks the bytes sent against the bytes hashed and the upload hashes nothing; a stream payload's
 *       parts are hashed here instead ({@link UploadPlan.PartSha256#AS_SENT}).
 * </ul>
 *
 * The buffer does not change while it is sent, so the CRC32C check covers every byte the part sends, on
 * any server; a server that verifies the header (AWS S3, S3Proxy) also checks the transfer. After the
 * last part, the payload must end where it ended when hashed (one byte past it is read). The ETags land in part-number order whatever order the parts
 * finish in: the output is the same as a one-at-a-time upload's.
 *
 * <h2>Failure states</h2>
 *
 * The first failure stops new parts from starting; the parts already in flight are waited for (so none
 * lands after the caller aborts the upload), and the failure is thrown naming the part, its byte range
 * and the object. A part's thread that ends by an {@link Error} fails the upload the same way (an
 * {@link IOException} caused by it), never leaving the wait for it open. An interrupt of the calling thread interrupts the parts in flight and is rethrown as
 * {@link InterruptedIOException}. A store closed while its parts are sent (the executor takes no more
 * tasks) fails the upload the same way, once the parts in flight have ended. Nothing here completes or
 * aborts the upload: the caller does.
 */
final class PartUploads {
  /**
   * The most a part's read asks of its source at once. A read into a heap array goes through a
   * temporary native buffer of the read's size, which the JDK keeps per thread: reading a whole 8 MiB
   * part at once kept 8 MiB of native memory on every part thread (BENCHMARKS.md, peak RSS).
   */
  static final int READ_CHUNK = 256 * 1024;

  private final S3Client client;
  private final String bucket;
  private final String objectKey;
  private final String uploadId;
  private final ExecutorService executor;
  private final int parallelism;
  private final int partSize;
  private final long size;
  private final int parts;
  private final String[] etags;
  private final ContentChecksums.Digest digest;
  private final UploadPlan plan;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final Deque<byte[]> free = new ArrayDeque<>();
  private final Set<Thread> workers = new HashSet<>();
  private int allocated;
  private int inFlight;
  private IOException failure;

  /**
   * @param digest the payload's hash pass, its CRC32Cs taken per part of its plan, which says how the parts
   *     travel and how many are in flight at once
   */
  PartUploads(S3Client client, String bucket, String objectKey, String uploadId, ExecutorService executor,
      ContentChecksums.Digest digest) {
    this.client = client;
    this.bucket = bucket;
    this.objectKey = objectKey;
    this.uploadId = uploadId;
    this.executor = executor;
    this.digest = digest;
    this.plan = digest.plan();
    this.parallelism = plan.parallelism();
    this.partSize = Math.toIntExact(plan.partSize());
    this.size = plan.size();
    this.parts = plan.parts();
    this.etags = new String[parts];
  }

  /**
   * Sends every part of {@code payload} and waits for them.
   *
   * @throws Payload.ChangedWhileReadingException when a part's bytes are not those hashed, or the
   *     payload no longer ends where it did (nothing of that part was sent)
   */
  void send(Payload payload) throws IOException {
    try {
      if (payload.readsRanges()) {
        sendRanges(payload);
      } else {
        sendStream(payload);
      }
    } catch (IOException | RuntimeException | Error e) {
      stopAndWait();
      throw e;
    }
    awaitAll();
  }

  /** The parts' CRC32Cs as sent, in part-number order, for CompleteMultipartUpload. */
  List<String> checksums() {
    String[] out = new String[parts];
    for (int part = 1; part <= parts; part++) {
      out[part - 1] = RequestBody.crc32cBase64(digest.crc32c(part));
    }
    return Arrays.asList(out);
  }

  /** The parts' ETags, in part-number order; valid after {@link #send} returned. */
  List<String> etags() {
    return Arrays.asList(etags);
  }

  private long offset(int part) {
    return (long) (part - 1) * partSize;
  }

  private int length(int part) {
    return (int) Math.min(partSize, size - offset(part));
  }

  /**
   * Reads up to {@code length} bytes of {@code in} into the start of {@code buffer}, at most {@link
   * #READ_CHUNK} per read; fewer only where {@code in} ends. Returns how many were read.
   */
  static int readPart(InputStream in, byte[] buffer, int length) throws IOException {
    int n = 0;
    while (n < length) {
      int got = in.read(buffer, n, Math.min(READ_CHUNK, length - n));
      if (got < 0) {
        break;
      }
      n += got;
    }
    return n;
  }

  private void sendStream(Payload payload) throws IOException {
    try (InputStream in = payload.open()) {
      for (int part = 1; part <= parts; part++) {
        byte[] buffer = acquire();
        int n = readPart(in, buffer, length(part));
        int p = part;
        start(p, buffer, () -> checkAndUpload(payload, p, buffer, n));
      }
      if (in.read() != -1) {
        throw grew(payload);
      }
    }
  }

  private void sendRanges(Payload payload) throws IOException {
    for (int part = 1; part <= parts; part++) {
      byte[] buffer = acquire();
      int p = part;
      start(p, buffer, () -> {
        int n;
        try (InputStream in = payload.openRange(offset(p), length(p))) {
          n = readPart(in, buffer, length(p));
        }
        checkAndUpload(payload, p, buffer, n);
      });
    }
    awaitAll();
    try (InputStream in = payload.openRange(size, 1)) {
      if (in.read() != -1) {
        throw grew(payload);
      }
    }
  }

  /**
   * Sends part {@code part} once its {@code n} bytes in {@code buffer} are the bytes hashed: the part's
   * full length and its CRC32C from the hash pass. The buffer stays unchanged until the request returns.
   */
  private void checkAndUpload(Payload payload, int part, byte[] buffer, int n) throws IOException {
    if (n != length(part)) {
      throw changed(payload, "it ended after " + (offset(part) + n) + " of " + size + " bytes");
    }
    CRC32C crc = new CRC32C();
    crc.update(buffer, 0, n);
    int actual = (int) crc.getValue();
    int hashed = digest.crc32c(part);
    if (actual != hashed) {
      throw changed(payload, "part " + part + " (bytes " + offset(part) + "-" + (offset(part) + n - 1)
          + ") read crc32c " + ContentChecksums.hex(actual) + ", hashed " + ContentChecksums.hex(hashed));
    }
    RequestBody body = body(plan, buffer, n, actual, digest.partSha256(part));
    etags[part - 1] = client.uploadPart(bucket, objectKey, uploadId, part, body);
    payload.progress().sent(n);
  }

  /**
   * The request body of a part, the first {@code n} bytes of {@code buffer}, whose CRC32C is {@code
   * crc32c}, sent as {@code plan} says ({@link UploadPlan.Body}): always with that CRC32C in a signed
   * header, and over plain http with a SHA-256 of the part signed as the payload hash too.
   *
   * @param hashed the part's SHA-256 from the hash pass ({@link UploadPlan.PartSha256#IN_HASH_PASS}), signed as
   *     given: the server, not this step, checks it against the bytes; else unused
   */
  static RequestBody body(UploadPlan plan, byte[] buffer, int n, int crc32c, String hashed) {
    if (plan.body() == UploadPlan.Body.CRC32C_OVER_TLS) {
      return RequestBody.ofPart(buffer, 0, n, crc32c);
    }
    return RequestBody.ofSignedPart(buffer, 0, n, crc32c,
        plan.partSha256() == UploadPlan.PartSha256.AS_SENT ? sha256(buffer, n) : hashed);
  }

  private static String sha256(byte[] buffer, int n) {
    java.security.MessageDigest md = Sha256.newDigest();
    md.update(buffer, 0, n);
    return Sha256.hex(md.digest());
  }

  private Payload.ChangedWhileReadingException changed(Payload payload, String how) {
    return Payload.ChangedWhileReadingException.notAsHashed(payload.toString(), digest.sha256(), how);
  }

  private Payload.ChangedWhileReadingException grew(Payload payload) {
    return Payload.ChangedWhileReadingException.notAsHashed(payload.toString(), digest.sha256(),
        "it has more than the " + size + " bytes hashed");
  }

  /** The work of one part; {@link #start} returns its buffer to the pool when it ends, however it ends. */
  @FunctionalInterface
  private interface PartTask {
    void run() throws IOException;
  }

  /**
   * Runs {@code task} on the executor, counted in flight until it ends.
   *
   * @throws IOException when the executor takes no more tasks (the store was closed): the part is not
   *     counted, so the wait for the parts in flight ends, and no later part starts
   */
  private void start(int part, byte[] buffer, PartTask task) throws IOException {
    lock.lock();
    try {
      inFlight++;
    } finally {
      lock.unlock();
    }
    try {
      executor.execute(() -> run(part, buffer, task));
    } catch (RejectedExecutionException e) {
      release(buffer);
      lock.lock();
      try {
        inFlight--;
        IOException closed = new IOException("upload of " + describe() + " stopped before part " + part
            + ": the store was closed");
        closed.initCause(e);
        if (failure == null) {
          failure = closed;
        }
        changed.signalAll();
        throw closed;
      } finally {
        lock.unlock();
      }
    }
  }

  /**
   * One part's task on its executor thread: the work, then, however it ended, its buffer back and the
   * count down, so the wait for the parts in flight always ends. An {@link Error} fails the upload like
   * any other failure and is rethrown to the executor's thread too.
   */
  private void run(int part, byte[] buffer, PartTask task) {
    try {
      if (enter()) {
        task.run();
      }
    } catch (IOException | RuntimeException e) {
      fail(part, e);
    } catch (Error e) {
      fail(part, e);
      throw e;
    } finally {
      release(buffer);
      lock.lock();
      try {
        workers.remove(Thread.currentThread());
        inFlight--;
        changed.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }

  /** Registers the task's thread so a stop can interrupt it; false when the upload already failed. */
  private boolean enter() {
    lock.lock();
    try {
      workers.add(Thread.currentThread());
      return failure == null;
    } finally {
      lock.unlock();
    }
  }

  /** A free part buffer; waits while {@code parallelism} parts are in flight. */
  private byte[] acquire() throws IOException {
    lock.lock();
    try {
      while (failure == null && free.isEmpty() && allocated == parallelism) {
        changed.await();
      }
      throwFailure();
      if (!free.isEmpty()) {
        return free.pop();
      }
      allocated++;
      return new byte[(int) Math.min(partSize, size)];
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while uploading parts of " + describe());
    } finally {
      lock.unlock();
    }
  }

  private void release(byte[] buffer) {
    lock.lock();
    try {
      free.push(buffer);
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void fail(int part, Throwable e) {
    lock.lock();
    try {
      if (failure == null && e instanceof Payload.ChangedWhileReadingException changed) {
        failure = changed;
      } else if (failure == null) {
        long from = offset(part);
        String what = "part " + part + " of " + parts + " (bytes " + from + "-" + (from + length(part) - 1) + ") of "
            + describe() + ": " + e.getMessage();
        failure = e instanceof InterruptedIOException ? new InterruptedIOException(what) : new IOException(what);
        failure.initCause(e);
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void throwFailure() throws IOException {
    if (failure != null) {
      throw failure;
    }
  }

  /** Waits for every part in flight; throws the first failure. */
  private void awaitAll() throws IOException {
    boolean interrupted = false;
    lock.lock();
    try {
      while (inFlight > 0) {
        changed.await();
      }
    } catch (InterruptedException e) {
      interrupted = true;
    } finally {
      lock.unlock();
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
      stopAndWait();
      throw new InterruptedIOException("interrupted while uploading parts of " + describe());
    }
    lock.lock();
    try {
      throwFailure();
    } finally {
      lock.unlock();
    }
  }

  /**
   * After a failure of the calling thread: stops the parts in flight (an interrupt) when the thread was
   * interrupted, and waits for every one to end, so none lands after the upload is aborted.
   */
  private void stopAndWait() {
    boolean interrupted = Thread.interrupted();
    lock.lock();
    try {
      if (failure == null) {
        failure = new IOException("upload of " + describe() + " stopped");
      }
      if (interrupted) {
        workers.forEach(Thread::interrupt);
      }
      changed.signalAll();
      while (inFlight > 0) {
        changed.awaitUninterruptibly();
      }
    } finally {
      lock.unlock();
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private String describe() {
    return "s3://" + bucket + "/" + objectKey;
  }
}
