package dev.idem.store.s3.testing;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The independent S3 implementations the S3 suites run on (contract S4: a guarantee idem relies on is
 * tested on more than one implementation, since each deviates from S3 somewhere else). A suite that runs
 * on each is annotated {@link OnEachS3Server}; where a server lacks a behaviour a case needs, {@link
 * ServerGaps} disables that case on that server and says why.
 *
 * <p>Which run is chosen by the system property {@value #PROPERTY}, a comma list of {@code s3proxy},
 * {@code moto} and {@code s3mock}; all three when it is not set. A chosen server that cannot be started
 * fails its suites: nothing is skipped quietly.
 */
public enum S3Implementation {
  /** S3Proxy 4.1.0 on its in-memory backend: SigV4 checked, versioning, atomic If-None-Match. */
  S3PROXY("S3Proxy"),
  /** moto 5.2.1, the Python library's server: no signature check, in memory. */
  MOTO("moto"),
  /** Adobe S3Mock 5.2.0, a Spring Boot application: no signature check, files under a root folder. */
  S3MOCK("S3Mock");

  /** The system property that chooses the implementations. */
  public static final String PROPERTY = "idem.s3.servers";

  private final String displayName;

  S3Implementation(String displayName) {
    this.displayName = displayName;
  }

  /** The implementations chosen for this run, in declaration order. */
  public static List<S3Implementation> selected() {
    String chosen = System.getProperty(PROPERTY, "");
    if (chosen.isBlank()) {
      return List.of(values());
    }
    List<S3Implementation> out = new ArrayList<>();
    for (S3Implementation i : values()) {
      for (String name : chosen.split(",")) {
        if (name.strip().toUpperCase(Locale.ROOT).equals(i.name())) {
          out.add(i);
        }
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(PROPERTY + "=" + chosen + " names none of s3proxy, moto, s3mock");
    }
    return out;
  }

  /** The server of this implementation shared by every test in this JVM. */
  public S3TestServer shared() throws IOException {
    return S3TestServer.shared(this);
  }

  /** A new server of this implementation, of the caller's own; close it when done. */
  public S3TestServer start() throws IOException {
    return switch (this) {
      case S3PROXY -> S3ProxyServer.start();
      case MOTO -> MotoServer.start();
      case S3MOCK -> S3MockServer.start();
    };
  }

  @Override
  public String toString() {
    return displayName;
  }
}
