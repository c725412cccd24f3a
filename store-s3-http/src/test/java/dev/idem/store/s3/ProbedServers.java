package dev.idem.store.s3;

import dev.idem.core.proof.ProbeResult;
import dev.idem.core.proof.StoreMarker;
import dev.idem.core.store.ObjectStore;
import dev.idem.store.s3.testing.S3Implementation;
import dev.idem.store.s3.testing.S3TestServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each S3 implementation's answers to the store probe, on a versioned and on an unversioned bucket of
 * its own, probed once per test JVM, so that a test's store on that server writes as the store idem
 * writes through there: configured by those answers as {@link dev.idem.core.proof.ProvenStore} configures
 * it by a trusted marker ({@link S3StoreProver#adopt}). Where idem refuses the server on that kind of
 * bucket, no store is configured and the bare store is handed back, as before the probe: the cases that
 * need idem's acceptance there are listed as refused in {@link dev.idem.store.s3.testing.ServerGaps}.
 */
final class ProbedServers {
  private record Probed(S3Implementation server, boolean versioned) {}

  private static final Map<Probed, StoreMarker> MARKERS = new ConcurrentHashMap<>();

  private ProbedServers() {}

  /** {@code store}, a store on {@code server} in a bucket that is {@code versioned} or not, as idem writes there. */
  static ObjectStore asProven(S3ObjectStore store, S3Implementation server, boolean versioned) {
    StoreMarker marker = marker(server, versioned);
    if (marker.probes().stream().anyMatch(ProbeResult::refuses)) {
      return store;
    }
    return S3StoreProver.of(store).adopt(marker, store);
  }

  private static StoreMarker marker(S3Implementation server, boolean versioned) {
    return MARKERS.computeIfAbsent(new Probed(server, versioned), p -> {
      try {
        S3TestServer s3 = server.shared();
        try (S3ObjectStore probed = S3ObjectStore.open(s3.location(s3.createBucket(versioned), ""), s3.credentials(),
            S3StoreOptions.defaults())) {
          List<ProbeResult> answers = S3StoreProver.of(probed).probe();
          return new StoreMarker("s3", PointerMode.CAS.toString(), Instant.now(), "idem test", answers);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
  }
}
