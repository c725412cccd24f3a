/**
 * The divergence scan: turns a store's history into "which keys were written with different bytes",
 * the number a deploy gate blocks on. Store-independent; stores only stream {@link
 * dev.idem.core.store.KeyHistory} one key at a time, so memory stays bounded by one key's versions.
 */
package dev.idem.core.scan;
