/**
 * The {@code idem} command: one picocli class per subcommand ({@link dev.idem.cli.IdemCommand} lists
 * them), built on core's publisher, pointer advancer, divergence scan and retention.
 *
 * <p>Invariants kept here:
 *
 * <ul>
 *   <li>Every exit code comes from {@link dev.idem.cli.ExitCodes}: commands return codes for
 *       outcomes (divergence, contention) and throw for failures, which that class maps and prints
 *       as one line on stderr.
 *   <li>Store URIs become stores only in {@link dev.idem.cli.StoreUris}.
 *   <li>Commands print only through picocli's writers and the {@link dev.idem.cli.CliContext}'s
 *       streams, never {@code System.out}, so tests capture everything.
 *   <li>Input is validated before a store is opened: bad input writes nothing.
 *   <li>No reflection beyond picocli's own (which the native profile's codegen covers).
 * </ul>
 */
package dev.idem.cli;
