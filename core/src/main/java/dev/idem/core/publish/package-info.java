/**
 * The part users call: {@link dev.idem.core.publish.Publisher} (skip, produce, publish create-only,
 * advance) and {@link dev.idem.core.publish.PointerAdvancer} (the monotonic pointer rule, G2).
 * Outcomes are values; only I/O failures and failed tasks are exceptions. {@link
 * dev.idem.core.run.Runner} wraps a publisher into the whole scheduled run of a service.
 */
package dev.idem.core.publish;
