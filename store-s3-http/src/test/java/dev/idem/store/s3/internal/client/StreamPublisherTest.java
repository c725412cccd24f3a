package dev.idem.store.s3.internal.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.Test;

/**
 * The stream body hands out exactly its bytes in full chunks, only against demand, opens its source on
 * the first demand and closes it however the subscription ends, and turns every failure of the source
 * (opening, reading, ending early) into one {@code onError} with nothing after it.
 */
class StreamPublisherTest {

  /** Records what a subscriber saw; requests {@code each} at a time, from inside onNext too. */
  private static final class Recorder implements Flow.Subscriber<ByteBuffer> {
    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    final List<Integer> sizes = new ArrayList<>();
    final long each;
    final int cancelAfter;
    Flow.Subscription subscription;
    int completions;
    int errors;
    Throwable error;

    Recorder(long each, int cancelAfter) {
      this.each = each;
      this.cancelAfter = cancelAfter;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
      s.request(each);
    }

    @Override
    public void onNext(ByteBuffer item) {
      sizes.add(item.remaining());
      byte[] b = new byte[item.remaining()];
      item.get(b);
      bytes.writeBytes(b);
      if (sizes.size() == cancelAfter) {
        subscription.cancel();
      } else if (each != Long.MAX_VALUE) {
        subscription.request(each);
      }
    }

    @Override
    public void onError(Throwable t) {
      errors++;
      error = t;
    }

    @Override
    public void onComplete() {
      completions++;
    }
  }

  /** A source that says whether it was closed, and hands out at most 1000 bytes per read. */
  private static final class Source extends FilterInputStream {
    boolean closed;

    Source(byte[] bytes) {
      super(new ByteArrayInputStream(bytes));
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      return super.read(b, off, Math.min(len, 1000));
    }

    @Override
    public void close() throws IOException {
      closed = true;
      super.close();
    }
  }

  private static byte[] bytes(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 13 + 7);
    }
    return b;
  }

  @Test
  void oneAtATime_fullChunksFromShortReadsThenOneCompletionAndClosed() {
    byte[] content = bytes(2 * StreamPublisher.CHUNK + 100);
    Source source = new Source(content);
    Recorder r = new Recorder(1, -1);
    new StreamPublisher(() -> source, content.length).subscribe(r);
    assertArrayEquals(content, r.bytes.toByteArray());
    assertEquals(List.of(StreamPublisher.CHUNK, StreamPublisher.CHUNK, 100), r.sizes);
    assertEquals(1, r.completions);
    assertNull(r.error);
    assertTrue(source.closed);
  }

  @Test
  void opensOnFirstDemandAndAfreshPerSubscription() {
    byte[] content = bytes(5000);
    int[] opens = {0};
    StreamPublisher p = new StreamPublisher(() -> {
      opens[0]++;
      return new Source(content);
    }, content.length);
    Recorder r = new Recorder(Long.MAX_VALUE, -1);
    p.subscribe(r);
    assertArrayEquals(content, r.bytes.toByteArray());
    Recorder again = new Recorder(Long.MAX_VALUE, -1);
    p.subscribe(again);
    assertArrayEquals(content, again.bytes.toByteArray(), "each attempt of a request reads its source afresh");
    assertEquals(2, opens[0]);
  }

  @Test
  void cancel_stopsItemsAndCompletionAndClosesTheSource() {
    byte[] content = bytes(5 * StreamPublisher.CHUNK);
    Source source = new Source(content);
    Recorder r = new Recorder(1, 2);
    new StreamPublisher(() -> source, content.length).subscribe(r);
    r.subscription.request(10);
    assertEquals(2, r.sizes.size());
    assertEquals(0, r.completions);
    assertTrue(source.closed);
  }

  @Test
  void sourceFailsToOpen_oneErrorWithItsCause() {
    IOException boom = new IOException("no such file");
    Recorder r = new Recorder(1, -1);
    new StreamPublisher(() -> {
      throw boom;
    }, 10).subscribe(r);
    assertSame(boom, r.error);
    r.subscription.request(5);
    assertEquals(1, r.errors, "nothing after the error");
    assertEquals(0, r.completions);
  }

  @Test
  void sourceFailsInTheLastChunk_earlierChunksOnlyThenOneErrorAndClosed() {
    byte[] content = bytes(StreamPublisher.CHUNK + 500);
    IOException changed = new IOException("changed");
    boolean[] closed = {false};
    InputStream failing = new FilterInputStream(new ByteArrayInputStream(content)) {
      private long read;

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        if (read >= StreamPublisher.CHUNK) {
          throw changed;
        }
        int n = super.read(b, off, len);
        read += Math.max(0, n);
        return n;
      }

      @Override
      public void close() {
        closed[0] = true;
      }
    };
    Recorder r = new Recorder(1, -1);
    new StreamPublisher(() -> failing, content.length).subscribe(r);
    assertEquals(List.of(StreamPublisher.CHUNK), r.sizes, "the chunk that failed is never handed out");
    assertSame(changed, r.error);
    assertEquals(0, r.completions);
    assertTrue(closed[0]);
  }

  @Test
  void sourceShorterThanTheLength_error() {
    Recorder r = new Recorder(Long.MAX_VALUE, -1);
    new StreamPublisher(() -> new Source(bytes(100)), 150).subscribe(r);
    assertEquals("body ended after 100 of 150 bytes", r.error.getMessage());
    assertEquals(List.of(), r.sizes);
  }

  @Test
  void nonPositiveRequest_error() {
    Recorder r = new Recorder(0, -1);
    new StreamPublisher(() -> new Source(bytes(10)), 10).subscribe(r);
    assertTrue(r.error instanceof IllegalArgumentException, String.valueOf(r.error));
    assertEquals("request(0): demand must be positive", r.error.getMessage());
    r.subscription.request(5);
    assertEquals(0, r.sizes.size(), "nothing after the error");
    assertEquals(1, r.errors);
    assertEquals(0, r.completions);
  }
}
