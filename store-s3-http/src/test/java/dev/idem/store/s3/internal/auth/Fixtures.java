package dev.idem.store.s3.internal.auth;

import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;

/** Shared test values: a fixed "now", an HTTP client with a short connect timeout, replies. */
final class Fixtures {

  static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
  static final Clock FIXED = Clock.fixed(NOW, ZoneOffset.UTC);
  static final HttpClient HTTP = HttpClient.newBuilder()
      .connectTimeout(Duration.ofSeconds(1))
      .followRedirects(HttpClient.Redirect.NEVER)
      .build();

  /** Secrets that tests search for in messages and {@code toString()} output. */
  static final String SECRET = "SECRET-wJalrXUtnFEMI/K7MDENG+bPxRfiCY";
  static final String TOKEN = "TOKEN-FwoGZXIvYXdzEJr//////////wEaDOpt";
  static final String WEB_TOKEN = "WEBTOKEN-eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln";

  private Fixtures() {}

  /** The standard chain with IMDS and the container base pointed at {@code 127.0.0.1}. */
  static CredentialChain chain(Map<String, String> env, Path home, Clock clock,
      URI containerBase, URI imds) {
    return CredentialChain.standard(env, home, HTTP, clock, containerBase, imds);
  }

  /** A URI on 127.0.0.1 where nothing listens. */
  static URI unreachable() {
    return URI.create("http://127.0.0.1:" + LocalServer.closedPort());
  }

  /** A container/IMDS style JSON credentials reply. */
  static String jsonCredentials(String id, String secret, String token, Instant expiration) {
    return "{\"Code\":\"Success\",\"Type\":\"AWS-HMAC\",\"AccessKeyId\":\"" + id
        + "\",\"SecretAccessKey\":\"" + secret + "\",\"Token\":\"" + token
        + "\",\"Expiration\":\"" + expiration + "\"}";
  }

  /** An STS AssumeRoleWithWebIdentity success reply. */
  static String stsCredentials(String id, String secret, String token, Instant expiration) {
    return "<AssumeRoleWithWebIdentityResponse"
        + " xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">"
        + "<AssumeRoleWithWebIdentityResult><Credentials>"
        + "<AccessKeyId>" + id + "</AccessKeyId>"
        + "<SecretAccessKey>" + secret + "</SecretAccessKey>"
        + "<SessionToken>" + token + "</SessionToken>"
        + "<Expiration>" + expiration + "</Expiration>"
        + "</Credentials></AssumeRoleWithWebIdentityResult>"
        + "</AssumeRoleWithWebIdentityResponse>";
  }
}
