package dev.idem.core.proof;

import java.util.Objects;

/**
 * What one probe of a store found: the guarantee idem relies on, how it was tested, and the answer.
 *
 * <p>Exists so that the probing (store-specific) and the decision and reporting (core's {@link
 * ProvenStore}, the CLI's doctor) share one value, and so the marker can record every answer.
 *
 * @param guarantee a short, stable name such as {@code if-none-match} or {@code hard-links}: lowercase
 *     letters, digits and {@code -}
 * @param test how it was tested, e.g. "a second PUT with If-None-Match: * to _idem/probe/…"
 * @param held whether the store behaved as idem needs
 * @param required whether a store without it is refused for writing (in this store's pointer mode)
 * @param observed what the store did, e.g. "answered 412" or "ignores If-None-Match: * (a second
 *     create-only PUT of _idem/probe/… succeeded)"
 * @param reliance what in idem depends on it, e.g. "idem's no-clobber publish depends on it"
 */
public record ProbeResult(String guarantee, String test, boolean held, boolean required, String observed,
    String reliance) {

  public ProbeResult {
    Objects.requireNonNull(guarantee, "guarantee");
    if (!guarantee.matches("[a-z0-9][a-z0-9-]{0,39}")) {
      throw new IllegalArgumentException("probe name must be 1-40 of [a-z0-9-], was " + guarantee);
    }
    test = field(test, "test");
    observed = field(observed, "observed");
    reliance = field(reliance, "reliance");
  }

  /** A guarantee the store has. */
  public static ProbeResult held(String guarantee, String test, boolean required, String observed, String reliance) {
    return new ProbeResult(guarantee, test, true, required, observed, reliance);
  }

  /** A guarantee the store lacks. */
  public static ProbeResult missing(String guarantee, String test, boolean required, String observed,
      String reliance) {
    return new ProbeResult(guarantee, test, false, required, observed, reliance);
  }

  /** Whether this answer refuses the store for writing: a required guarantee it lacks. */
  public boolean refuses() {
    return required && !held;
  }

  /**
   * {@code HELD}, {@code MISSING} (required) or {@code ABSENT} (lacking but not required: recorded only,
   * or not needed in this pointer mode).
   */
  public String answer() {
    return held ? "HELD" : required ? "MISSING" : "ABSENT";
  }

  /**
   * Marker fields are single-line text between {@code " | "} separators: line breaks and {@code |} in
   * a server's reply are replaced so that a reply can never forge another field.
   */
  private static String field(String s, String what) {
    Objects.requireNonNull(s, what);
    String clean = s.replaceAll("[\\r\\n|]", " ").replaceAll("\\s+", " ").strip();
    if (clean.isEmpty()) {
      throw new IllegalArgumentException("probe " + what + " must not be empty");
    }
    return clean;
  }
}
