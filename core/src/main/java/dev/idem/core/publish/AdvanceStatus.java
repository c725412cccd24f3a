package dev.idem.core.publish;

/** How a pointer advance ended. */
public enum AdvanceStatus {
  /** The pointer now names the new generation. */
  ADVANCED,
  /** The pointer already stood at the same position (window start, schema version): a no-op. */
  ALREADY_CURRENT,
  /** The pointer stood at a later position; it was left alone (a late or old writer backs off, G2). */
  NEWER_PRESENT,
  /** Every attempt lost a race or found the store busy; nothing was written. Safe to retry later. */
  CONTENDED
}
