/**
 * The part users call: {@link dev.idem.core.publish.Publisher} (skip, produce, publish create-only,
 * advance) and {@link dev.idem.core.publish.PointerAdvancer} (the monotonic pointer rule, G2).
 * Outcomes are values; only I/O failures and failed tasks are exceptions.
 */
package dev.idem.core.publish;
