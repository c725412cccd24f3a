package dev.idem.core.store;

import java.io.IOException;

/**
 * A store lacks a capability an operation cannot do without ({@link PublishHistory} for the divergence
 * scan, for example): the operation refuses rather than report on what it cannot see. Nothing was
 * written.
 *
 * <p>An {@link IOException} so that every caller that handles store failures handles this one too; the
 * CLI maps it to its exit code for a refused store.
 */
public class MissingCapabilityException extends IOException {
  private static final long serialVersionUID = 1L;

  /**
   * @param capability what the store lacks, e.g. {@code publish history}
   * @param neededFor what the operation needs it for
   */
  public MissingCapabilityException(ObjectStore store, String capability, String neededFor) {
    super(store.describe() + " keeps no " + capability + ", and " + neededFor + "; nothing written");
  }
}
