package dev.idem.cli;

import dev.idem.core.Names;
import dev.idem.core.OutputKey;
import dev.idem.core.scan.KeyVerdict;
import dev.idem.core.store.Acknowledgement;
import dev.idem.core.store.HistoryQuery;
import dev.idem.core.store.KeyHistory;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.PublishHistory;
import dev.idem.core.store.Retirement;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code idem ack KEY --reason TEXT}: an operator records that a divergent key was reviewed (the keying
 * bug behind it is fixed), so the deploy gate passes it again without deleting the evidence that proves
 * what happened. Exists because the only other way to pass the gate was {@code gc
 * --drop-divergent-evidence}, which destroys the proof.
 *
 * <p>The acknowledgement ({@link Acknowledgement}) names what the key's history held now: its distinct
 * contents and the number of divergent attempts. The scan reports a key it still covers as ACKNOWLEDGED
 * and fails the gate again on a new content or one more divergent attempt. Recorded create-only, with
 * who ({@code --writer}), when and why, like a pointer rewind; a writing command, so the store is proven
 * first (S1).
 *
 * <p>Exit codes: 0 recorded; 2 the key is not divergent, or bad input (nothing written); 7 nothing was
 * ever published at the key; 4, 5, 8 as any writing command (8 also for a store without publish history,
 * where there is nothing to acknowledge against nor to record in).
 */
@Command(name = "ack", mixinStandardHelpOptions = true, versionProvider = IdemCommand.Version.class,
    description = {
        "Acknowledge a reviewed divergent key: the scan passes it until something new is written there.",
        "Once the keying bug behind a divergence is fixed, 'idem scan' reports the key as ACKNOWLEDGED and "
            + "passes; every record and the evidence stay.",
        "The acknowledgement covers what the key holds now: its distinct contents and its divergent attempts. "
            + "A new content or one more divergent attempt at the key fails the gate again. It is recorded "
            + "create-only under _idem/acks/ with who (--writer), when and why (--reason), and shown by 'idem "
            + "scan' and 'idem history'. Exit 2 when the key is not divergent, 7 when nothing was published there.",
        ""
    })
final class AckCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Parameters(index = "0", paramLabel = "KEY", description = "The divergent key, as 'idem scan' prints it.")
  String key;

  @Option(names = "--reason", paramLabel = "TEXT", required = true,
      description = "Why, recorded with the acknowledgement: one line, at most "
          + Acknowledgement.MAX_REASON_LENGTH + " characters.")
  String reason;

  @Mixin
  StoreOption store;

  @Mixin
  WriterOption writer;

  @Mixin
  OutputOptions output;

  @Override
  public Integer call() throws IOException {
    CliContext ctx = IdemCommand.context(spec);
    try {
      Names.requireSafeKey(key);
      Acknowledgement.requireReason(reason);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    String operator = writer.resolve(ctx);
    PrintWriter out = spec.commandLine().getOut();
    try (ObjectStore st = store.open(ctx)) {
      PublishHistory history = PublishHistory.of(st, "an acknowledgement is judged against it and recorded in it");
      KeyHistory[] found = {null};
      history.history(HistoryQuery.under(key), h -> {
        if (h.key().equals(key)) {
          found[0] = h;
          return false;
        }
        return true;
      });
      if (found[0] == null) {
        throw new NotFoundException("nothing was ever published at " + key + " in " + st.describe()
            + Pipelines.didYouMean(st, key));
      }
      Retirement mark = OutputKey.looksLikeKey(key) ? HistoryCommand.mark(st, OutputKey.parse(key).pipeline()) : null;
      KeyVerdict v = KeyVerdict.of(found[0], mark);
      if (!v.divergent()) {
        throw new UsageException(key + " is not divergent (writes=" + v.writes() + " payloads=" + v.payloads()
            + "): nothing to acknowledge; nothing written");
      }
      Acknowledgement ack;
      try {
        ack = new Acknowledgement(key, v.contentIds(), v.divergentAttempts(), operator, ctx.clock().instant(), reason);
      } catch (IllegalArgumentException e) {
        throw new UsageException(key + " cannot be acknowledged: " + e.getMessage());
      }
      history.acknowledge(ack);
      if (output.json) {
        out.println(json(ack).put("status", "ACKNOWLEDGED").put("writes", v.writes()).put("payloads", v.payloads()));
      } else if (!output.quiet) {
        out.println("ACKNOWLEDGED " + key + " writes=" + v.writes() + " payloads=" + v.payloads()
            + " divergent_attempts=" + v.divergentAttempts() + " by " + ack.by() + " at " + ack.at());
        spec.commandLine().getErr().println("idem ack: 'idem scan' passes " + key + " while nothing new is written "
            + "there; a new content or divergent attempt fails the gate again");
      }
      return ExitCodes.OK;
    }
  }

  /** The acknowledgement as JSON: what it covers, who, when and why. */
  static Json json(Acknowledgement a) {
    return Json.object()
        .put("key", a.key())
        .put("contents", a.contents())
        .put("divergent_attempts", a.divergentAttempts())
        .put("by", a.by())
        .put("at", a.at())
        .put("reason", a.reason());
  }
}
