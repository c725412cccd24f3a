package dev.idem.store.s3.testing;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;

/**
 * The main class of the S3Proxy child JVM that {@link S3ProxyServer} starts: runs S3Proxy's own main
 * ({@code org.gaul.s3proxy.Main}, loaded from the S3Proxy jar on the class path) in this JVM, and ends
 * this JVM as soon as the JVM that started it is gone, whatever way it went.
 *
 * <p>A shutdown hook in the parent only covers an orderly exit. PIT ends a timed-out minion with a
 * kill that runs no hooks, and a crash or {@code kill -9} of a test run does the same; without this
 * watch, each of those left a running S3Proxy behind. Two signals, either of which halts this JVM:
 *
 * <ul>
 *   <li>end of file on standard input: the parent keeps the write end of the pipe and never writes,
 *       so the read returns only when the parent's end is closed, which the kernel does when the parent
 *       dies;
 *   <li>the parent process's exit ({@link ProcessHandle#onExit()}), for a parent that gave no pipe.
 * </ul>
 */
public final class S3ProxyLauncher {
  /** Exit status when the parent went away. */
  static final int ORPHANED = 3;

  private S3ProxyLauncher() {}

  public static void main(String[] args) throws Exception {
    watchStdin(System.in);
    ProcessHandle.current().parent().ifPresent(p -> p.onExit().thenRun(() -> Runtime.getRuntime().halt(ORPHANED)));
    try {
      Class.forName("org.gaul.s3proxy.Main").getMethod("main", String[].class).invoke(null, (Object) args);
    } catch (InvocationTargetException e) {
      e.getCause().printStackTrace();
      Runtime.getRuntime().halt(1);
    }
    // S3Proxy's main returns once the server is up; its non-daemon threads keep this JVM running.
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
    }, "s3proxy-parent-watch");
    t.setDaemon(true);
    t.start();
  }
}
