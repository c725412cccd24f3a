/**
 * JMH benchmarks of idem against the physical limit and against the tools people use instead
 * (hand-rolled {@code Files.write}, git's ref update, the AWS SDK), each measured side by side in the
 * same run so that ratios, not noisy absolute times, carry the result.
 *
 * <p>Every class states in its Javadoc what it compares and how to run it alone; {@code bench/run}
 * runs the quick profile of all of them through {@link dev.idem.bench.QuickProfile} and writes
 * {@code bench/target/results.md}. File benchmarks write under {@code -Didem.bench.dir} (default
 * {@code bench/target/bench-data} when run from the repository root), never to a tmpfs.
 */
package dev.idem.bench;
