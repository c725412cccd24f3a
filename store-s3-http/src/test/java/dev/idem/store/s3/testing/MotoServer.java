package dev.idem.store.s3.testing;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * moto as a test server ({@link S3TestServer}): the S3 of the Python library moto ({@code moto_server}),
 * in memory, in a child Python process on 127.0.0.1. moto checks no signature, so any credentials pass.
 *
 * <p>The process is {@code python3 -c SCRIPT PORT}: the script starts a daemon thread that reads its
 * standard input (a pipe from this JVM, never written to) and ends the process with {@code os._exit} at
 * its end of file, which the kernel gives when this JVM dies however it died, then runs {@code
 * moto.server.main} on the port; the same orphan protection the Java servers get from {@link
 * ServerLauncher}. The interpreter is the system property {@code moto.python}, default {@code python3};
 * it must have moto installed (the suites are written against moto 5.2.1). Ready in about a second.
 */
public final class MotoServer extends S3TestServer {
  private static final String SCRIPT = String.join("\n",
      "import os, sys, threading",
      "def watch():",
      "    while sys.stdin.buffer.read1(256):",
      "        pass",
      "    os._exit(3)",
      "threading.Thread(target=watch, daemon=True).start()",
      "from moto.server import main",
      "main(['-H', '127.0.0.1', '-p', sys.argv[1]])",
      "");

  private MotoServer(Process process, int port, Path log) {
    super(S3Implementation.MOTO, process, port, log);
  }

  /** A new server of its own; close it when done. */
  public static MotoServer start() throws IOException {
    String python = System.getProperty("moto.python", "python3");
    return start(S3Implementation.MOTO, Duration.ofSeconds(60), (port, log) -> {
      try {
        return new ProcessBuilder(List.of(python, "-c", SCRIPT, Integer.toString(port)))
            .redirectErrorStream(true).redirectOutput(log.toFile()).start();
      } catch (IOException e) {
        throw new IOException("cannot start moto with " + python + " (system property moto.python; python3 with"
            + " moto 5 installed, or leave moto out with -D" + S3Implementation.PROPERTY + "=s3proxy,s3mock): "
            + e.getMessage(), e);
      }
    }, MotoServer::new);
  }
}
