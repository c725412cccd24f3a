package dev.idem.store.s3;

import dev.idem.core.Sha256;
import dev.idem.core.store.Payload;
import dev.idem.store.s3.client.RequestBody;
import dev.idem.store.s3.client.S3Client;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.security.MessageDigest;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Sends the parts of one multipart upload, at most {@code parallelism} at a time, and hashes the whole
 * content in order on the way, so {@link CreateOnlyUpload} can refuse a payload that changed under it
 * before anything becomes visible.
 *
 * <h2>Protocol</h2>
 *
 * Each part in flight owns one part-sized buffer from a pool of at most {@code parallelism} (allocated
 * on first need), so parts take at most {@code parallelism × partSize} bytes of memory. A payload that
 * {@linkplain Payload#readsRanges() reads ranges} (a file) has each part's task read its own range; a
 * stream payload is read in order by the calling thread, which fills one free buffer after another.
 * Either way the whole-content digest is fed in part order (range tasks take turns for it), each part's
 * own SHA-256 is computed by its task and signed with the part, and the ETags land in part-number
 * order whatever order the parts finish in: the output is the same as a one-at-a-time upload's.
 *
 * <h2>Failure states</h2>
 *
 * The first failure stops new parts from starting; the parts already in flight are waited for (so none
 * lands after the caller aborts the upload), and the failure is thrown naming the part, its byte range
 * and the object. An interrupt of the calling thread interrupts the parts in flight and is rethrown as
 * {@link InterruptedIOException}. Nothing here completes or aborts the upload: the caller does.
 */
final class PartUploads {
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
  private final MessageDigest whole = Sha256.newDigest();

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final Deque<byte[]> free = new ArrayDeque<>();
  private final Set<Thread> workers = new HashSet<>();
  private int allocated;
  private int inFlight;
  private int turn = 1;
  private IOException failure;

  PartUploads(S3Client client, String bucket, String objectKey, String uploadId, ExecutorService executor,
      int parallelism, int partSize, long size) {
    this.client = client;
    this.bucket = bucket;
    this.objectKey = objectKey;
    this.uploadId = uploadId;
    this.executor = executor;
    this.parallelism = parallelism;
    this.partSize = partSize;
    this.size = size;
    this.parts = Math.toIntExact((size + partSize - 1) / partSize);
    this.etags = new String[parts];
  }

  /**
   * Sends every part of {@code payload} and waits for them.
   *
   * @return the lowercase hex SHA-256 of the bytes read, which differs from the declared one when the
   *     payload changed (grew, shrank or was rewritten) while it was read
   */
  String send(Payload payload) throws IOException {
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
    return Sha256.hex(whole.digest());
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

  private void sendStream(Payload payload) throws IOException {
    try (InputStream in = payload.open()) {
      for (int part = 1; part <= parts; part++) {
        byte[] buffer = acquire();
        int n = in.readNBytes(buffer, 0, length(part));
        whole.update(buffer, 0, n);
        if (n == 0) {
          release(buffer);
          break;
        }
        int p = part;
        start(p, buffer, () -> upload(p, buffer, n));
      }
      int extra = in.read();
      if (extra != -1) {
        whole.update((byte) extra);
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
          n = in.readNBytes(buffer, 0, length(p));
        }
        if (awaitTurn(p)) {
          whole.update(buffer, 0, n);
          passTurn(p);
          if (n > 0) {
            upload(p, buffer, n);
          }
        }
      });
    }
    awaitAll();
    try (InputStream in = payload.openRange(size, 1)) {
      int extra = in.read();
      if (extra != -1) {
        whole.update((byte) extra);
      }
    }
  }

  private void upload(int part, byte[] buffer, int n) throws IOException {
    MessageDigest digest = Sha256.newDigest();
    digest.update(buffer, 0, n);
    String sha = Sha256.hex(digest.digest());
    etags[part - 1] = client.uploadPart(bucket, objectKey, uploadId, part, RequestBody.ofSlice(buffer, 0, n, sha));
  }

  /** The work of one part; {@link #start} returns its buffer to the pool when it ends, however it ends. */
  @FunctionalInterface
  private interface PartTask {
    void run() throws IOException;
  }

  private void start(int part, byte[] buffer, PartTask task) {
    lock.lock();
    try {
      inFlight++;
    } finally {
      lock.unlock();
    }
    executor.execute(() -> {
      if (enter()) {
        try {
          task.run();
        } catch (IOException | RuntimeException e) {
          fail(part, e);
        } catch (Error e) {
          fail(part, e);
          throw e;
        }
      }
      release(buffer);
      lock.lock();
      try {
        workers.remove(Thread.currentThread());
        inFlight--;
        changed.signalAll();
      } finally {
        lock.unlock();
      }
    });
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

  /** Waits until every earlier part fed the whole-content digest; false when the upload failed meanwhile. */
  private boolean awaitTurn(int part) throws InterruptedIOException {
    lock.lock();
    try {
      while (failure == null && turn != part) {
        changed.await();
      }
      return failure == null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting to hash part " + part + " of " + describe());
    } finally {
      lock.unlock();
    }
  }

  private void passTurn(int part) {
    lock.lock();
    try {
      if (turn == part) {
        turn++;
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void fail(int part, Throwable e) {
    lock.lock();
    try {
      if (failure == null) {
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
