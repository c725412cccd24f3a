/**
 * idem's core: output keys and windows, the store SPI ({@link dev.idem.core.store.ObjectStore}), the
 * publisher and pointer rules, the in-JVM runner, proof of a store, retention and the divergence scan.
 * JDK only.
 *
 * <p>Every package is exported: an embedder uses the keys, the publisher, the pointer rules and the
 * scan; a store implementation (idem's own or another) uses the SPI and its helpers ({@link
 * dev.idem.core.Sha256}, {@link dev.idem.core.Names}, {@link dev.idem.core.store.Deadline}), so none of
 * them is public for idem's modules alone. What is not API is package-private.
 */
module dev.idem.core {
  exports dev.idem.core;
  exports dev.idem.core.proof;
  exports dev.idem.core.publish;
  exports dev.idem.core.retention;
  exports dev.idem.core.run;
  exports dev.idem.core.scan;
  exports dev.idem.core.store;
}
