package dev.idem.store.s3.internal.client;

import java.nio.ByteBuffer;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A request body over a slice of a caller's array, handed to the HTTP client as read-only {@link
 * ByteBuffer} views of it, {@value #CHUNK} bytes each, without copying: {@code
 * BodyPublishers.ofByteArray(buf, off, len)} copies the whole slice into fresh buffers, a second copy of
 * every multipart part. (The chunk size is measured in BENCHMARKS.md, against larger views.)
 *
 * <p>The caller keeps the slice unchanged until the request returns ({@link RequestBody#ofSlice}). A
 * request abandoned by a timeout could still be reading the views when the buffer is reused. What keeps
 * such bytes from landing depends on how the part travels ({@link RequestBody#ofPart}, {@link
 * RequestBody#ofSignedPart}): to a plain-http endpoint the part's SHA-256 is signed and the server
 * refuses any other body; to an https endpoint the part is {@code UNSIGNED-PAYLOAD} and its CRC32C,
 * signed in {@code x-amz-checksum-crc32c}, is what the server checks (where the store's {@code
 * part-checksum-crc32c} probe held; on a server that ignores that header nothing would). Either way the
 * completion then names the ETags of the parts as the server stored them.
 *
 * Follows the reactive-streams rules the HTTP client relies on: items only against demand, no
 * reentrant {@code onNext}, one {@code onComplete}, nothing after {@code cancel}, and {@code onError}
 * for a non-positive request.
 */
final class SlicePublisher implements Flow.Publisher<ByteBuffer> {
  static final int CHUNK = 16 * 1024;

  private final byte[] buffer;
  private final int offset;
  private final int length;

  SlicePublisher(byte[] buffer, int offset, int length) {
    this.buffer = buffer;
    this.offset = offset;
    this.length = length;
  }

  @Override
  public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
    subscriber.onSubscribe(new Slices(subscriber));
  }

  private final class Slices implements Flow.Subscription {
    private final Flow.Subscriber<? super ByteBuffer> subscriber;
    private final AtomicLong demand = new AtomicLong();
    private final AtomicInteger work = new AtomicInteger();
    private volatile boolean cancelled;
    private int sent;
    private boolean done;

    Slices(Flow.Subscriber<? super ByteBuffer> subscriber) {
      this.subscriber = subscriber;
    }

    @Override
    public void request(long n) {
      if (n <= 0) {
        cancelled = true;
        subscriber.onError(new IllegalArgumentException("request(" + n + "): demand must be positive"));
        return;
      }
      demand.accumulateAndGet(n, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b);
      drain();
    }

    @Override
    public void cancel() {
      cancelled = true;
    }

    /** Emits against demand; one thread at a time, and a request made inside onNext is served by the loop. */
    private void drain() {
      if (work.getAndIncrement() != 0) {
        return;
      }
      int missed = 1;
      do {
        while (!cancelled && sent < length && demand.get() > 0) {
          int n = Math.min(CHUNK, length - sent);
          ByteBuffer slice = ByteBuffer.wrap(buffer, offset + sent, n).slice().asReadOnlyBuffer();
          sent += n;
          demand.decrementAndGet();
          subscriber.onNext(slice);
        }
        if (!cancelled && !done && sent >= length) {
          done = true;
          subscriber.onComplete();
        }
        missed = work.addAndGet(-missed);
      } while (missed != 0);
    }
  }
}
