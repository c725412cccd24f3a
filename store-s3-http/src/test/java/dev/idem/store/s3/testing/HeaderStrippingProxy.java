package dev.idem.store.s3.testing;

import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An S3 gateway on 127.0.0.1 that drops chosen request headers before passing requests on to a real S3
 * server, as an older MinIO, a gateway or a header-stripping proxy effectively does: the server then
 * never sees {@code If-None-Match} or {@code If-Match} and applies the write unconditionally. A {@link
 * QuirkProxy} with one {@link QuirkProxy.Quirk#strips} quirk, which re-signs what it forwards.
 *
 * <p>{@link #refusingMarkersThatAreNotKeys} makes it a gateway that strips nothing but answers a
 * ListObjectVersions whose {@code key-marker} names no key with 404, as LocalS3 does ({@link
 * QuirkProxy.Quirk#refusesKeyMarkersThatAreNotKeys}).
 */
public final class HeaderStrippingProxy implements AutoCloseable {
  private final AtomicInteger strippedCount = new AtomicInteger();
  private final AtomicInteger keyMarkersPassed = new AtomicInteger();
  private final List<String> keyMarkersRefused = new CopyOnWriteArrayList<>();
  private final QuirkProxy proxy;

  /** A proxy to {@code server} that removes {@code headers} (names in any case) from every request. */
  public HeaderStrippingProxy(S3TestServer server, String... headers) throws IOException {
    this(server, null, List.of(headers), false);
  }

  /**
   * A proxy to {@code server} that strips nothing and refuses, with 404 {@code NoSuchKey}, a
   * ListObjectVersions whose {@code key-marker} is neither a key of the bucket nor, in a delimiter
   * listing, a common prefix of its keys.
   */
  public static HeaderStrippingProxy refusingMarkersThatAreNotKeys(S3TestServer server) throws IOException {
    return new HeaderStrippingProxy(server, null, List.of(), true);
  }

  /**
   * A proxy that removes {@code headers} only from requests with HTTP method {@code method} (e.g. {@code
   * POST}: CompleteMultipartUpload, not PutObject).
   */
  public static HeaderStrippingProxy onMethod(S3TestServer server, String method, String... headers)
      throws IOException {
    return new HeaderStrippingProxy(server, method, List.of(headers), false);
  }

  private HeaderStrippingProxy(S3TestServer server, String method, List<String> headers, boolean keyMarkersMustBeKeys)
      throws IOException {
    this.proxy = keyMarkersMustBeKeys
        ? new QuirkProxy(server, QuirkProxy.Quirk.refusesKeyMarkersThatAreNotKeys(server, keyMarkersPassed,
            keyMarkersRefused))
        : new QuirkProxy(server, QuirkProxy.Quirk.strips(method, Set.copyOf(headers), strippedCount));
  }

  public URI endpoint() {
    return proxy.endpoint();
  }

  /** How many headers were removed so far. */
  public int strippedCount() {
    return strippedCount.get();
  }

  /** How many ListObjectVersions key-markers were checked and passed on. */
  public int keyMarkersPassed() {
    return keyMarkersPassed.get();
  }

  /** The ListObjectVersions key-markers refused so far, in order. */
  public List<String> keyMarkersRefused() {
    return List.copyOf(keyMarkersRefused);
  }

  @Override
  public void close() {
    proxy.close();
  }
}
