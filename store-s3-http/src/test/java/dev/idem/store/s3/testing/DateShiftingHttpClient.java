package dev.idem.store.s3.testing;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An {@link HttpClient} whose replies carry a {@code Date} header moved by an offset the test sets, or
 * none at all: the server's clock as a store reads it, advanced or set back without waiting and without
 * touching the server's stored times ({@code LastModified} in listings is left as the server wrote it).
 * Everything else is the real reply.
 */
public final class DateShiftingHttpClient extends ForwardingHttpClient {
  private volatile Duration shift = Duration.ZERO;
  private volatile boolean dropped;

  /** Sends with a plain HTTP/1.1 client. */
  public DateShiftingHttpClient() {
    this(plain());
  }

  /** Sends with {@code delegate} (one that counts or intercepts requests). */
  public DateShiftingHttpClient(HttpClient delegate) {
    super(delegate);
  }

  /** From now on every reply's {@code Date} is the server's moved by {@code shift}. */
  public void shift(Duration shift) {
    this.shift = shift;
    this.dropped = false;
  }

  /** From now on replies carry no {@code Date} at all. */
  public void dropDate() {
    this.dropped = true;
  }

  @Override
  public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
      throws IOException, InterruptedException {
    HttpResponse<T> reply = delegate.send(request, handler);
    Map<String, List<String>> moved = new LinkedHashMap<>();
    reply.headers().map().forEach((name, values) -> {
      if (!name.equalsIgnoreCase("Date")) {
        moved.put(name, values);
      } else if (!dropped) {
        moved.put(name, values.stream().map(this::moved).toList());
      }
    });
    HttpHeaders headers = HttpHeaders.of(moved, (name, value) -> true);
    return reply(reply.request(), reply.statusCode(), headers, reply.body(), reply.sslSession());
  }

  private String moved(String date) {
    return DateTimeFormatter.RFC_1123_DATE_TIME.format(
        ZonedDateTime.parse(date, DateTimeFormatter.RFC_1123_DATE_TIME).plus(shift).withZoneSameInstant(ZoneOffset.UTC));
  }
}
