package dev.idem.cli;

import dev.idem.core.proof.ProbeResult;
import dev.idem.core.proof.ProvenStore;
import dev.idem.core.proof.StoreMarker;
import dev.idem.core.proof.StoreProver;
import dev.idem.core.store.ObjectStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code idem doctor}: shows what idem relies on in a store, how each guarantee was tested and the
 * answer, with how the store is reached, so an operator can see why a store is refused (exit 8) before
 * a deploy depends on it.
 *
 * <p>By default it probes now (writing only under {@code _idem/probe/}, removed again; on a file store
 * that may create the root directory) and never creates the marker; {@code --no-probe} reads only and
 * reports the answers the marker recorded. A marker naming another pointer mode than this process's
 * is reported and refused like a missing guarantee. What no probe can show ({@link StoreProver#unchecked},
 * and under {@code --no-probe} whether the store can be written today) is listed as not checked, so an
 * "ok" never claims more than was tested. Every guarantee judged is listed, also when a later
 * probe fails; a missing one then still decides the exit (8), since the store is refused for it whatever
 * else went wrong.
 */
@Command(name = "doctor", mixinStandardHelpOptions = true, versionProvider = IdemCommand.Version.class,
    description = {
        "Check a store before trusting it: print each guarantee idem relies on (create-only writes, the "
            + "pointer's compare-and-swap, hard links, directory fsync, file locks), how it was tested and "
            + "the answer; how the store is reached (S3: endpoint, region, addressing, credentials source "
            + "(never the secret), bucket versioning, clock skew against the server's Date); and the store "
            + "marker, which fixes the store's pointer mode.",
        "",
        "By default doctor probes the store now: it writes scratch objects under _idem/probe/ and removes "
            + "them (on a file: store this creates the directory if missing). It never writes the marker; "
            + "the first writing command does. With --no-probe it only reads, and reports the answers the "
            + "marker recorded.",
        "",
        "What no probe can show is listed under 'not checked' (--json: not_checked): that a condition is "
            + "atomic when writers race (cas mode's If-Match: S3Proxy passes the probe and is not), that a file "
            + "lock is honoured by other hosts, and with --no-probe whether idem can write there today.",
        "It also shows the configuration file read (IDEM_CONFIG_FILE, else $XDG_CONFIG_HOME/idem/config, else "
            + "~/.config/idem/config; the section IDEM_PROFILE names, else [default]) and every setting in force "
            + "with where it came from: a flag, the environment, or the file (flag over environment over file).",
        "",
        "Exit 0 when every required guarantee holds, 8 when one is missing or the marker names another "
            + "pointer mode, 7 with --no-probe on a store without a marker. When a probe fails (the store "
            + "unreachable, credentials refused) the guarantees judged before it are still listed, and the "
            + "exit is 8 if one of them is missing, else that failure's.",
        ""
    })
final class DoctorCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  StoreOption store;

  @Mixin
  OutputOptions output;

  @Option(names = "--no-probe", description = "Read only: report the answers recorded in the store marker "
      + "instead of probing now.")
  boolean noProbe;

  @Override
  public Integer call() throws IOException {
    CliContext ctx = IdemCommand.context(spec);
    PrintWriter out = spec.commandLine().getOut();
    try (ObjectStore opened = store.open(ctx)) {
      if (!(opened instanceof ProvenStore proven)) {
        throw new UsageException("doctor needs a store opened from its URI; " + opened.describe() + " is not");
      }
      StoreProver prover = proven.prover();
      Optional<StoreMarker> marker = prover.readMarker();
      if (marker.isPresent() && !prover.pointerModeChosen()) {
        prover.followMarkerMode(marker.get()); // no mode set: the store's is the marker's, probed and shown as such
      }
      Map<String, String> environment = prover.environment();
      if (noProbe && marker.isEmpty()) {
        throw new NotFoundException("no store marker at " + prover.markerLocation() + ": idem never wrote to "
            + opened.describe() + "; run 'idem doctor' without --no-probe to probe it");
      }
      List<ProbeResult> results = new ArrayList<>();
      IOException stopped = null;
      if (noProbe) {
        results.addAll(marker.get().probes());
      } else {
        try {
          prover.probe(results::add);
        } catch (IOException e) {
          stopped = e; // what was judged before it is still reported, and decides the exit when it refuses
        }
      }
      List<String> problems = new ArrayList<>();
      for (ProbeResult r : results) {
        if (r.refuses()) {
          problems.add(opened.describe() + " " + r.observed() + "; idem refuses to write: " + r.reliance());
        }
      }
      String modeProblem = marker.filter(m -> !m.pointerMode().equals(prover.pointerMode()))
          .map(m -> "the store marker fixes pointer mode " + m.pointerMode() + ", this process is configured for "
              + prover.pointerMode() + " (" + prover.pointerModeSetting() + "); idem refuses to use the store in this "
              + "mode: set it to " + m.pointerMode() + ", or leave it unset to follow the marker")
          .orElse(null);
      if (modeProblem != null) {
        problems.add(modeProblem);
      }
      List<String> unchecked = new ArrayList<>(prover.unchecked());
      if (noProbe) {
        unchecked.add(0, "now: --no-probe reports the answers the marker recorded " + marker.get().createdAt()
            + "; whether idem can write to " + opened.describe() + " today (permissions, quota, a read-only mount, "
            + "the server's behaviour since) was not checked");
      }
      if (output.json) {
        out.println(json(environment, marker, results, noProbe, problems, stopped, unchecked)
            .put("config", ctx.settings().json(store.uri)));
      } else if (!output.quiet) {
        environment.forEach((name, value) -> out.println(name + ": " + value));
        ctx.settings().describe(store.uri).forEach(out::println);
        out.println("marker: " + marker.map(m -> prover.markerLocation() + ", pointer mode " + m.pointerMode()
            + ", created " + m.createdAt() + " by " + m.createdBy())
            .orElse("none yet (the first writing command probes the store and creates " + prover.markerLocation()
                + ")"));
        out.println("guarantees (" + (noProbe ? "as recorded in the marker" : "probed now") + "):");
        for (ProbeResult r : results) {
          out.println("  " + r.answer() + " " + r.guarantee() + (r.required() ? "" : " (not required)")
              + ": " + r.test() + ": " + r.observed());
        }
        if (!unchecked.isEmpty()) {
          out.println("not checked:");
          unchecked.forEach(u -> out.println("  " + u));
        }
      }
      PrintWriter err = spec.commandLine().getErr();
      for (String p : problems) {
        err.println("idem doctor: " + p);
      }
      if (stopped != null && problems.isEmpty()) {
        throw stopped;
      }
      if (stopped != null) {
        err.println("idem doctor: probing stopped before every guarantee was judged: "
            + ExitCodes.oneLine(stopped, spec.commandLine()));
      }
      if (!problems.isEmpty()) {
        return ExitCodes.STORE_REFUSED;
      }
      if (output.human()) {
        out.println(noProbe ? "ok: the guarantees the marker recorded hold for " + opened.describe() + " (not probed now)"
            : "ok: idem can write to " + opened.describe());
      }
      return ExitCodes.OK;
    }
  }

  private Json json(Map<String, String> environment, Optional<StoreMarker> marker, List<ProbeResult> results,
      boolean fromMarker, List<String> problems, IOException stopped, List<String> unchecked) {
    Json env = Json.object();
    environment.forEach(env::put);
    List<Json> guarantees = new ArrayList<>();
    for (ProbeResult r : results) {
      guarantees.add(Json.object()
          .put("guarantee", r.guarantee())
          .put("answer", r.answer())
          .put("required", r.required())
          .put("test", r.test())
          .put("observed", r.observed())
          .put("reliance", r.reliance()));
    }
    return Json.object()
        .put("environment", env)
        .put("marker", marker.map(m -> Json.object()
            .put("pointer_mode", m.pointerMode())
            .put("created_at", m.createdAt())
            .put("created_by", m.createdBy())).orElse(null))
        .put("source", fromMarker ? "marker" : "probe")
        .put("guarantees", guarantees)
        .put("not_checked", unchecked)
        .put("problems", problems)
        .put("stopped", stopped == null ? null : ExitCodes.oneLine(stopped, spec.commandLine()))
        .put("ok", problems.isEmpty() && stopped == null);
  }
}
