package dev.idem.store.s3.testing;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.util.Arrays;

/**
 * The main class of a Java test server's child JVM ({@link S3ProxyServer}, {@link S3MockServer}): runs
 * the server's own main class, named by the first argument and loaded from the server's jar on the
 * class path, with the other arguments, and ends this JVM as soon as the JVM that started it is gone,
 * whatever way it went.
 *
 * <p>A shutdown hook in the parent only covers an orderly exit. PIT ends a timed-out minion with a
 * kill that runs no hooks, and a crash or {@code kill -9} of a test run does the same; without this
 * watch, each of those left a running server behind. Two signals, either of which halts this JVM:
 *
 * <ul>
 *   <li>end of file on standard input: the parent keeps the write end of the pipe and never writes,
 *       so the read returns only when the parent's end is closed, which the kernel does when the parent
 *       dies;
 *   <li>the parent process's exit ({@link ProcessHandle#onExit()}), for a parent that gave no pipe.
 * </ul>
 *
 * {@link MotoServer} gives its Python child the same stdin watch.
 */
public final class ServerLauncher {
  /** Exit status when the parent went away. */
  static final int ORPHANED = 3;

  private ServerLauncher() {}

  public static void main(String[] args) throws Exception {
    watchStdin(System.in);
    ProcessHandle.current().parent().ifPresent(p -> p.onExit().thenRun(() -> Runtime.getRuntime().halt(ORPHANED)));
    try {
      Class.forName(args[0]).getMethod("main", String[].class)
          .invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
    } catch (InvocationTargetException e) {
      e.getCause().printStackTrace();
      Runtime.getRuntime().halt(1);
    }
    // The servers' mains return once the server is up; their non-daemon threads keep this JVM running.
  }

  private static void watchStdin(InputStream in) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[256];
      try {
        while (in.read(buf) >= 0) {
          // nothing is ever written; keep reading until the parent's end closes
        }
      } catch (IOException e) {
        // a broken pipe means the same as end of file
      }
      Runtime.getRuntime().halt(ORPHANED);
    }, "server-parent-watch");
    t.setDaemon(true);
    t.start();
  }
}
