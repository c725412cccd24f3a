package dev.idem.cli;

import dev.idem.core.store.ObjectStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;

/**
 * What a command needs from the world besides its arguments: raw stdin/stdout for payload bytes
 * (picocli's writers carry text), the environment, the clock, and how store URIs become stores.
 * {@link Main} builds the real one; tests build their own, so no command touches {@code System.*}.
 */
public final class CliContext {

  /** Opens the store a URI names. */
  @FunctionalInterface
  public interface StoreOpener {
    ObjectStore open(String uri) throws IOException;
  }

  private final InputStream stdin;
  private final OutputStream stdout;
  private final Map<String, String> env;
  private final Clock clock;
  private final StoreOpener opener;

  public CliContext(InputStream stdin, OutputStream stdout, Map<String, String> env, Clock clock, StoreOpener opener) {
    this.stdin = Objects.requireNonNull(stdin, "stdin");
    this.stdout = Objects.requireNonNull(stdout, "stdout");
    this.env = Map.copyOf(env);
    this.clock = Objects.requireNonNull(clock, "clock");
    this.opener = opener;
  }

  /** The real process: System streams, the real environment, the UTC clock, {@link StoreUris}. */
  public static CliContext system() {
    Map<String, String> env = System.getenv();
    return new CliContext(System.in, System.out, env, Clock.systemUTC(), null);
  }

  public InputStream stdin() {
    return stdin;
  }

  public OutputStream stdout() {
    return stdout;
  }

  public Map<String, String> env() {
    return env;
  }

  public String env(String name) {
    String v = env.get(name);
    return v == null || v.isEmpty() ? null : v;
  }

  public Clock clock() {
    return clock;
  }

  /**
   * Opens the store named by {@code uri}, or by {@code IDEM_STORE}, or the default {@code
   * file:.idem}.
   */
  public ObjectStore openStore(String uri) throws IOException {
    String chosen = StoreUris.choose(uri, env);
    return opener != null ? opener.open(chosen) : StoreUris.open(chosen, env);
  }
}
