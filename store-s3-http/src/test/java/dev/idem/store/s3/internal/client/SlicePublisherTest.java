package dev.idem.store.s3.internal.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.Test;

/** The slice body hands out exactly its bytes, only against demand, read-only, and stops on cancel. */
class SlicePublisherTest {

  /** Records what a subscriber saw; requests {@code each} at a time, from inside onNext too. */
  private static final class Recorder implements Flow.Subscriber<ByteBuffer> {
    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    final List<Integer> sizes = new ArrayList<>();
    final long each;
    final int cancelAfter;
    Flow.Subscription subscription;
    int completions;
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
      assertTrue(item.isReadOnly(), "the caller's array is handed out read-only");
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
      error = t;
    }

    @Override
    public void onComplete() {
      completions++;
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
  void oneAtATime_exactSliceInChunksThenOneCompletion() {
    byte[] buffer = bytes(3 * SlicePublisher.CHUNK + 100 + 10);
    Recorder r = new Recorder(1, -1);
    new SlicePublisher(buffer, 10, buffer.length - 10).subscribe(r);
    assertArrayEquals(java.util.Arrays.copyOfRange(buffer, 10, buffer.length), r.bytes.toByteArray());
    assertEquals(List.of(SlicePublisher.CHUNK, SlicePublisher.CHUNK, SlicePublisher.CHUNK, 100), r.sizes);
    assertEquals(1, r.completions);
    assertNull(r.error);
  }

  @Test
  void unboundedDemand_everythingAtOnce() {
    byte[] buffer = bytes(40_000);
    Recorder r = new Recorder(Long.MAX_VALUE, -1);
    SlicePublisher p = new SlicePublisher(buffer, 0, buffer.length);
    p.subscribe(r);
    r.subscription.request(Long.MAX_VALUE);
    assertArrayEquals(buffer, r.bytes.toByteArray());
    assertEquals(1, r.completions, "more demand after the end completes nothing twice");
    Recorder again = new Recorder(Long.MAX_VALUE, -1);
    p.subscribe(again);
    assertArrayEquals(buffer, again.bytes.toByteArray(), "each attempt of a request subscribes afresh");
  }

  @Test
  void cancel_stopsItemsAndCompletion() {
    byte[] buffer = bytes(5 * SlicePublisher.CHUNK);
    Recorder r = new Recorder(1, 2);
    new SlicePublisher(buffer, 0, buffer.length).subscribe(r);
    r.subscription.request(10);
    assertEquals(2, r.sizes.size());
    assertEquals(0, r.completions);
  }

  @Test
  void nonPositiveRequest_error() {
    Recorder r = new Recorder(0, -1);
    new SlicePublisher(bytes(10), 0, 10).subscribe(r);
    assertTrue(r.error instanceof IllegalArgumentException, String.valueOf(r.error));
    assertEquals("request(0): demand must be positive", r.error.getMessage());
    r.subscription.request(5);
    assertEquals(0, r.sizes.size(), "nothing after the error");
    assertEquals(0, r.completions);
  }
}
