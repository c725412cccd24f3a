package dev.idem.fuzz;

/** Replicas on a replica process's command line: comma-separated fields, the fate last. */
final class ReplicaCodec {
  private ReplicaCodec() {}

  static String encode(Replica r) {
    return String.join(",", String.valueOf(r.id()), String.valueOf(r.pipeline()), String.valueOf(r.startMs()),
        String.valueOf(r.taskMs()), String.valueOf(r.payload()), r.build().name(), String.valueOf(r.nextWindow()),
        String.valueOf(r.process()), r.claimFate().encode(), fate(r.fate()));
  }

  static Replica decode(String s) {
    String[] f = s.split(",", 10);
    return new Replica(Integer.parseInt(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]), Integer.parseInt(f[3]),
        f[4].charAt(0), Replica.Build.valueOf(f[5]), Boolean.parseBoolean(f[6]), fate(f[9]), Boolean.parseBoolean(f[7]),
        ClaimFate.decode(f[8]));
  }

  private static String fate(Fate fate) {
    if (fate instanceof Fate.Dies d) {
      return "dies;" + d.death().name() + ";" + d.step().encode();
    }
    if (fate instanceof Fate.Faulted f) {
      return "faulted;" + f.fault().name() + ";" + f.step().encode();
    }
    if (fate instanceof Fate.Stalls st) {
      return "stalls;" + st.millis() + ";" + st.step().encode();
    }
    if (fate instanceof Fate.ClockAhead) {
      return "clockahead";
    }
    return "finishes";
  }

  private static Fate fate(String s) {
    String[] f = s.split(";", 3);
    return switch (f[0]) {
      case "dies" -> new Fate.Dies(Fate.Death.valueOf(f[1]), Step.decode(f[2]));
      case "faulted" -> new Fate.Faulted(Fate.Fault.valueOf(f[1]), Step.decode(f[2]));
      case "stalls" -> new Fate.Stalls(Step.decode(f[2]), Integer.parseInt(f[1]));
      case "clockahead" -> new Fate.ClockAhead();
      default -> new Fate.Finishes();
    };
  }
}
