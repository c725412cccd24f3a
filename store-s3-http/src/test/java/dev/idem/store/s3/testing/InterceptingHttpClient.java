package dev.idem.store.s3.testing;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Flow;

/**
 * An {@link HttpClient} that runs a test's hook before each synchronous request and then sends it
 * with a real client: the seam for faults and latches keyed on one request (fail UploadPart number 2
 * on every attempt, hold parts until two are in flight) that a TCP proxy cannot single out. The hook
 * runs on the sending thread; what it throws is what {@code send} throws. A {@link Responder} may
 * answer a request itself instead (an S3 error reply for one key: 503 SlowDown on every retry, 403 on
 * one area), which the server then never sees.
 */
public final class InterceptingHttpClient extends ForwardingHttpClient {

  /** Runs before a request is sent. */
  @FunctionalInterface
  public interface Hook {
    void before(HttpRequest request) throws IOException, InterruptedException;
  }

  /** Answers a request in the server's place, or returns {@code null} to let it through. */
  @FunctionalInterface
  public interface Responder {
    ErrorReply answer(HttpRequest request);
  }

  /** An S3 error reply: {@code status} with an {@code <Error>} body naming {@code code}. */
  public record ErrorReply(int status, String code) {}

  private final Hook hook;
  private final java.util.function.Consumer<HttpRequest> after;
  private final Responder responder;

  public InterceptingHttpClient(Hook hook) {
    this(hook, request -> { });
  }

  /** @param after runs when the request's reply arrived or sending it failed */
  public InterceptingHttpClient(Hook hook, java.util.function.Consumer<HttpRequest> after) {
    this(hook, after, request -> null);
  }

  private InterceptingHttpClient(Hook hook, java.util.function.Consumer<HttpRequest> after, Responder responder) {
    super(plain());
    this.hook = hook;
    this.after = after;
    this.responder = responder;
  }

  /** A client that sends every request {@code responder} does not answer, after {@code hook}. */
  public static InterceptingHttpClient answering(Hook hook, Responder responder) {
    return new InterceptingHttpClient(hook, request -> { }, responder);
  }

  /** The request's path, percent-decoded: {@code /bucket/key} in path-style addressing. */
  public static String path(HttpRequest request) {
    return java.net.URLDecoder.decode(request.uri().getRawPath().replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  /** Whether {@code request} is UploadPart number {@code part}. */
  public static boolean isPart(HttpRequest request, int part) {
    String q = request.uri().getRawQuery();
    return "PUT".equals(request.method()) && q != null && q.contains("partNumber=" + part + "&");
  }

  /** Whether {@code request} is any UploadPart. */
  public static boolean isPart(HttpRequest request) {
    String q = request.uri().getRawQuery();
    return "PUT".equals(request.method()) && q != null && q.contains("partNumber=");
  }

  @Override
  public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
      throws IOException, InterruptedException {
    try {
      hook.before(request);
      ErrorReply reply = responder.answer(request);
      return reply == null ? delegate.send(request, handler) : answer(request, handler, reply);
    } finally {
      after.accept(request);
    }
  }

  /** The reply a server sends for {@code error}, handed to {@code handler} as the JDK's client would. */
  private static <T> HttpResponse<T> answer(HttpRequest request, HttpResponse.BodyHandler<T> handler, ErrorReply error) {
    byte[] body = request.method().equals("HEAD") ? new byte[0]
        : ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + error.code() + "</Code><Message>injected "
            + error.code() + "</Message><RequestId>INJECTED</RequestId></Error>").getBytes(StandardCharsets.UTF_8);
    HttpHeaders headers = HttpHeaders.of(Map.of("Content-Type", List.of("application/xml"),
        "Content-Length", List.of(Integer.toString(body.length))), (name, value) -> true);
    HttpResponse.BodySubscriber<T> subscriber = handler.apply(new HttpResponse.ResponseInfo() {
      @Override
      public int statusCode() {
        return error.status();
      }

      @Override
      public HttpHeaders headers() {
        return headers;
      }

      @Override
      public Version version() {
        return Version.HTTP_1_1;
      }
    });
    subscriber.onSubscribe(new Flow.Subscription() {
      @Override
      public void request(long n) {}

      @Override
      public void cancel() {}
    });
    if (body.length > 0) {
      subscriber.onNext(List.of(ByteBuffer.wrap(body)));
    }
    subscriber.onComplete();
    T t = subscriber.getBody().toCompletableFuture().join();
    return reply(request, error.status(), headers, t, Optional.empty());
  }
}
