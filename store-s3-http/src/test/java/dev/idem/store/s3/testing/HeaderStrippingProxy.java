package dev.idem.store.s3.testing;

import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An S3 gateway on 127.0.0.1 that drops chosen request headers before passing requests on to a real S3
 * server, as an older MinIO, a gateway or a header-stripping proxy effectively does: the server then
 * never sees {@code If-None-Match} or {@code If-Match} and applies the write unconditionally. A {@link
 * QuirkProxy} with one {@link QuirkProxy.Quirk#strips} quirk, which re-signs what it forwards.
 */
public final class HeaderStrippingProxy implements AutoCloseable {
  private final AtomicInteger strippedCount = new AtomicInteger();
  private final QuirkProxy proxy;

  /** A proxy to {@code server} that removes {@code headers} (names in any case) from every request. */
  public HeaderStrippingProxy(S3ProxyServer server, String... headers) throws IOException {
    this(server, (String) null, List.of(headers));
  }

  /**
   * A proxy that removes {@code headers} only from requests with HTTP method {@code method} (e.g. {@code
   * POST}: CompleteMultipartUpload, not PutObject).
   */
  public static HeaderStrippingProxy onMethod(S3ProxyServer server, String method, String... headers)
      throws IOException {
    return new HeaderStrippingProxy(server, method, List.of(headers));
  }

  private HeaderStrippingProxy(S3ProxyServer server, String method, List<String> headers) throws IOException {
    this.proxy = new QuirkProxy(server, QuirkProxy.Quirk.strips(method, Set.copyOf(headers), strippedCount));
  }

  public URI endpoint() {
    return proxy.endpoint();
  }

  /** How many request headers were removed so far, so a test can tell the proxy did its job. */
  public int strippedCount() {
    return strippedCount.get();
  }

  @Override
  public void close() {
    proxy.close();
  }
}
