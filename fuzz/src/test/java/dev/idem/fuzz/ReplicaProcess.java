package dev.idem.fuzz;

import dev.idem.core.store.ObjectStore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * A replica in its own JVM, so that it can be killed for real (SIGKILL, SIGTERM) at a chosen step.
 *
 * <p>Protocol on stdout, one line each: {@code READY} when the store is open; then, after the runner
 * writes {@code GO} to stdin, {@code TASK} when the task starts, {@code ATTEMPT ...} after each publish
 * call ({@link Attempt#encode}), {@code STEP ...} when the fate's death step is reached, after which
 * the process waits to be killed, and {@code FIRED} before {@code DONE} when a fault or stall fired: a
 * fault the store swallows (a temporary file it could not delete, left for sweep) shows in no attempt,
 * and the runner must still count the replica as disturbed, as it does a thread by its hook. Arguments:
 * backend kind, namespace, encoded replica, encoded claim setup, then the backend's own arguments.
 */
public final class ReplicaProcess {
  private ReplicaProcess() {}

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    Backend.Kind kind = Backend.Kind.valueOf(args[0]);
    String namespace = args[1];
    Replica replica = ReplicaCodec.decode(args[2]);
    ClaimSetup claims = ClaimSetup.decode(args[3]);
    List<String> backendArgs = Arrays.asList(args).subList(4, args.length);
    FateHook hook = new FateHook(replica.fate(), step -> {
      out.println("STEP " + step.encode());
      parkForever();
    });
    ChildStores.warmUp(kind, backendArgs);
    try (ObjectStore store = ChildStores.open(kind, backendArgs, hook)) {
      out.println("READY");
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      if (!"GO".equals(in.readLine())) {
        return;
      }
      Thread.sleep(replica.startMs());
      ReplicaJob.run(store, replica, claims, namespace, kind, new ReplicaJob.Listener() {
        @Override
        public void taskRan() {
          out.println("TASK");
        }

        @Override
        public long attemptStarting() {
          return 0;
        }

        @Override
        public void attemptEnded(Attempt attempt) {
          out.println("ATTEMPT " + attempt.encode());
        }
        // A real signal kills it, heartbeat and all: its claim is left as a killed replica's is.
      }, () -> false);
    }
    if (hook.fired()) {
      out.println("FIRED");
    }
    out.println("DONE");
  }

  private static void parkForever() {
    while (true) {
      try {
        Thread.sleep(60_000);
      } catch (InterruptedException e) {
        // Waiting for the signal; nothing else may end this.
      }
    }
  }
}
