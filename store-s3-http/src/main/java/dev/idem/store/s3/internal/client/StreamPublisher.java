package dev.idem.store.s3.internal.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A request body read from a stream (a single PUT's payload, through {@link VerifyingInputStream}) in
 * chunks of {@value #CHUNK} bytes, each read into a fresh array handed to the HTTP client.
 *
 * <p>Exists because {@code BodyPublishers.ofInputStream} reads 16 KiB at a time: java.net.http writes
 * each item to the socket on its own thread and asks for the next one only then, so a 64 MiB body is
 * about 4,000 hand-offs between threads, a cost per byte that the AWS SDK's blocking client does not
 * pay. Chunks of {@value #CHUNK} bytes make that 256 hand-offs, and allocate no more in total (the
 * payload's size in fresh arrays, as before: the client may still hold an item after asking for the
 * next, so arrays are never reused).
 *
 * <p>The stream is opened on the first demand and closed on completion, error or cancel. A failure to
 * open or read it reaches the subscriber as {@code onError}; a chunk is emitted only when it has been
 * read completely, so the verifying stream's check before the last byte keeps the last chunk from ever
 * being sent when the source changed. Follows the reactive-streams rules the HTTP client relies on:
 * items only against demand, no reentrant {@code onNext}, one terminal signal, nothing after {@code
 * cancel}, and {@code onError} for a non-positive request.
 */
final class StreamPublisher implements Flow.Publisher<ByteBuffer> {
  static final int CHUNK = 256 * 1024;

  /** Opens the source; a failure is reported to the subscriber as the cause of its error. */
  @FunctionalInterface
  interface Source {
    InputStream open() throws IOException;
  }

  private final Source source;
  private final long length;

  StreamPublisher(Source source, long length) {
    this.source = source;
    this.length = length;
  }

  @Override
  public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
    subscriber.onSubscribe(new Chunks(subscriber));
  }

  private final class Chunks implements Flow.Subscription {
    private final Flow.Subscriber<? super ByteBuffer> subscriber;
    private final AtomicLong demand = new AtomicLong();
    private final AtomicInteger work = new AtomicInteger();
    private volatile boolean cancelled;
    private volatile Throwable badRequest;
    private InputStream in;
    private long sent;
    private boolean done;

    Chunks(Flow.Subscriber<? super ByteBuffer> subscriber) {
      this.subscriber = subscriber;
    }

    @Override
    public void request(long n) {
      if (n <= 0) {
        badRequest = new IllegalArgumentException("request(" + n + "): demand must be positive");
      } else {
        demand.accumulateAndGet(n, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b);
      }
      drain();
    }

    @Override
    public void cancel() {
      cancelled = true;
      drain();
    }

    /** Emits against demand; one thread at a time, and a request made inside onNext is served by the loop. */
    private void drain() {
      if (work.getAndIncrement() != 0) {
        return;
      }
      int missed = 1;
      do {
        if (!done) {
          step();
        }
        missed = work.addAndGet(-missed);
      } while (missed != 0);
    }

    private void step() {
      if (cancelled) {
        finish();
        return;
      }
      if (badRequest != null) {
        finish();
        subscriber.onError(badRequest);
        return;
      }
      try {
        if (in == null) {
          in = source.open();
        }
        while (!cancelled && sent < length && demand.get() > 0) {
          byte[] chunk = new byte[(int) Math.min(CHUNK, length - sent)];
          int n = in.readNBytes(chunk, 0, chunk.length);
          if (n < chunk.length) {
            // The verifying stream reports a short source itself; any other stream ended early.
            throw new IOException("body ended after " + (sent + n) + " of " + length + " bytes");
          }
          sent += n;
          demand.decrementAndGet();
          subscriber.onNext(ByteBuffer.wrap(chunk));
        }
      } catch (IOException | UncheckedIOException e) {
        finish();
        subscriber.onError(e);
        return;
      }
      if (cancelled) {
        finish();
      } else if (sent >= length) {
        finish();
        subscriber.onComplete();
      }
    }

    /** Ends the subscription: no more signals after the one the caller sends, and the source closed. */
    private void finish() {
      done = true;
      if (in != null) {
        try {
          in.close();
        } catch (IOException e) {
          // nothing more is read from it; the body's outcome is decided already
        }
      }
    }
  }
}
