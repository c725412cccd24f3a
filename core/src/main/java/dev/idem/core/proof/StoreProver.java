package dev.idem.core.proof;

import dev.idem.core.store.ObjectStore;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What a store module provides so idem can prove a store before trusting it with writes: probes of the
 * guarantees idem relies on there, and the store marker's read and create-only write.
 *
 * <p>Exists because how to test a guarantee is store-specific (conditional headers on S3, hard links
 * and directory fsync on a filesystem), while when to probe and when to refuse is core's ({@link
 * ProvenStore}). Implementations write nowhere but {@link StoreMarker#PROBE_PREFIX} (removed again)
 * and {@link StoreMarker#KEY}.
 */
public interface StoreProver {

  /** The store kind recorded in the marker: {@code s3} or {@code file}. */
  String kind();

  /**
   * The pointer mode this process uses on the store ({@code cas}, {@code log}, {@code lock}): the one it
   * was configured for, or, when none was chosen ({@link #pointerModeChosen}), a default until {@link
   * #adopt} hands over a marker, and the marker's after.
   */
  String pointerMode();

  /**
   * Whether this process chose its pointer mode. A prover whose mode was not chosen follows the store
   * marker's ({@link #adopt}), so that only a real conflict (a process set to one mode, a store marked
   * for the other) is refused. True by default: a store with one mode has nothing to follow.
   */
  default boolean pointerModeChosen() {
    return true;
  }

  /**
   * How the pointer mode is chosen in this process, for the message that refuses a conflict, e.g.
   * {@code --pointer-mode or IDEM_S3_POINTER_MODE}.
   */
  default String pointerModeSetting() {
    return "the pointer mode setting";
  }

  /** Where the marker is, for messages, e.g. {@code s3://bucket/prefix/_idem/store}. */
  String markerLocation();

  /**
   * Reads the marker. Writes nothing and creates nothing (a missing file store root stays missing).
   *
   * @return empty when the store has none (never written by idem, or only by idem before markers)
   * @throws StoreRefusedException when a marker is there but is not one this idem can read
   */
  Optional<StoreMarker> readMarker() throws IOException;

  /**
   * Probes every guarantee idem relies on in this store and pointer mode. May create the store (its
   * root directory) and writes only under {@link StoreMarker#PROBE_PREFIX}, removing what it wrote
   * before it returns, also when a probe found a guarantee missing.
   *
   * @throws IOException when a probe could not be carried out (the store is unreachable, refuses the
   *     credentials); scratch objects may then be left under {@link StoreMarker#PROBE_PREFIX}
   */
  List<ProbeResult> probe() throws IOException;

  /**
   * {@link #probe()}, handing each answer to {@code judged} as soon as it is judged, so a caller still
   * has every answer judged before a later probe failed; that failure propagates unchanged (its
   * exception type is what callers classify). By default the answers are handed over once all are
   * judged; a store whose probes can fail one by one overrides it.
   */
  default List<ProbeResult> probe(Consumer<ProbeResult> judged) throws IOException {
    List<ProbeResult> results = probe();
    results.forEach(judged);
    return results;
  }

  /**
   * Writes {@code marker} at {@link StoreMarker#KEY} create-only and durably: of racing callers exactly
   * one creates it.
   *
   * @return {@code false} when a marker was already there (nothing was written)
   */
  boolean createMarker(StoreMarker marker) throws IOException;

  /**
   * Called by {@link ProvenStore} once it trusts {@code marker} for writing (read or just created), before
   * its first write: the store to write through, configured with what the marker records about the
   * server. The S3 store, for one, sends a single PUT's SHA-256 in a checksum header instead of signing
   * the payload only where the marker records that the server verifies that header, and checks every
   * publish for an earlier version under its own where it records that racing create-only writes both
   * succeeded. The store returned shares {@code store}'s resources: {@link ProvenStore} closes only
   * {@code store}. By default {@code store} itself. Writes nothing.
   *
   * @param store the store {@link ProvenStore} wraps, which is the one this prover proves
   */
  default ObjectStore adopt(StoreMarker marker, ObjectStore store) {
    return store;
  }

  /**
   * Called by {@link ProvenStore} when this process chose no pointer mode ({@link #pointerModeChosen})
   * and {@code marker} names another than the default: the prover and its store take the marker's, before
   * the store's first pointer read or write. A mode this idem does not know is not taken (the store is
   * then refused for the mismatch). Does nothing by default; writes nothing.
   */
  default void followMarkerMode(StoreMarker marker) {}

  /**
   * What idem relies on in this store, in this pointer mode, that no probe can show, one line each,
   * {@code name: why}, for {@code idem doctor} to list as not checked: a probe sends one request at a
   * time from one host, so it cannot show that a condition is atomic when writers race, or that a lock
   * is honoured by other hosts. Empty by default.
   */
  default List<String> unchecked() {
    return List.of();
  }

  /**
   * How the store is reached, for {@code idem doctor}: name to value in display order (endpoint,
   * region, addressing, credentials source, versioning, clock skew for S3; root and filesystem for a
   * file store). Never a secret. Reads only.
   */
  Map<String, String> environment() throws IOException;
}
