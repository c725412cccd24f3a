package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.core.store.CasResult;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Pointer;
import dev.idem.core.testing.InMemoryObjectStore;
import dev.idem.store.s3.CredentialsException;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each failure class of the table, from a store that fails on purpose. */
class StoreFailuresTest {
  @TempDir
  Path dir;

  /** An in-memory store whose every call throws {@code failure}, except close. */
  static ObjectStore failing(IOException failure) {
    return (ObjectStore) Proxy.newProxyInstance(ObjectStore.class.getClassLoader(), new Class<?>[] {ObjectStore.class},
        (proxy, method, args) -> {
          if (method.getName().equals("close")) {
            return null;
          }
          if (method.getName().equals("describe")) {
            return "failing:";
          }
          throw failure;
        });
  }

  Cli.Result publishWith(CliContext.StoreOpener opener) throws IOException {
    Path f = Files.writeString(dir.resolve("payload"), "x");
    return new Cli().opener(opener).run("publish", "--file", f.toString(), "--pipeline", "p", "--window", "60s",
        "--at", "1726000030", "--schema", "1", "--store", "file:unused");
  }

  @Test
  void storeIoError_exits4WithOneLineNamingTheStore() throws IOException {
    // The JDK's channel reads and writes fail with a bare "Invalid argument": the line adds the store.
    Cli.Result r = publishWith(uri -> failing(new IOException("Invalid argument")));
    assertEquals(ExitCodes.STORE_UNAVAILABLE, r.code(), r.describe());
    assertEquals("idem publish: Invalid argument (store file:unused)\n", r.err(), r.describe());
    Cli.Result named = publishWith(uri -> failing(new java.nio.file.NoSuchFileException("/data/idem/p", "/data/idem/q", null)));
    assertEquals("idem publish: /data/idem/p -> /data/idem/q: no such file or directory\n", named.err(), named.describe());
  }

  @Test
  void credentials_exit5() throws IOException {
    Cli.Result r = publishWith(uri -> {
      throw new CredentialsException("environment: AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not");
    });
    assertEquals(ExitCodes.AUTH, r.code(), r.describe());
    assertEquals(1, r.errLines().length, r.describe());
  }

  @Test
  void busyPointer_exits3AfterPublishing() throws IOException {
    InMemoryObjectStore memory = new InMemoryObjectStore();
    AtomicBoolean busy = new AtomicBoolean(true);
    ObjectStore contended = (ObjectStore) Proxy.newProxyInstance(ObjectStore.class.getClassLoader(),
        new Class<?>[] {ObjectStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("compareAndSetPointer") && busy.get()) {
            return CasResult.BUSY;
          }
          try {
            return method.invoke(memory, args);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          }
        });
    Cli.Result r = publishWith(uri -> contended);
    assertEquals(ExitCodes.CONTENDED, r.code(), r.describe());
    assertTrue(r.out().contains("pointer=BUSY"), r.describe());
    assertTrue(r.err().contains("running the same command again completes it"), r.describe());
    assertFalse(memory.readPointer("p").isPresent());

    Cli.Result advance = new Cli().opener(uri -> contended).run("pointer", "advance", "--pipeline", "p", "--window", "60s",
        "--at", "1726000030", "--schema", "1", "--store", "file:unused");
    assertEquals(ExitCodes.CONTENDED, advance.code(), advance.describe());

    busy.set(false);
    Cli.Result retry = publishWith(uri -> contended);
    assertEquals(0, retry.code(), retry.describe());
    Pointer p = memory.readPointer("p").orElseThrow().pointer();
    assertTrue(retry.out().contains(p.key()), retry.describe());
  }

  @Test
  void s3Unreachable_exits4() throws IOException {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    Cli.Result r = new Cli()
        .env("AWS_ENDPOINT_URL", "http://127.0.0.1:" + port)
        .env("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
        .env("AWS_SECRET_ACCESS_KEY", "secret")
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .run("pointer", "show", "--pipeline", "p", "--store", "s3://bucket/prefix");
    assertEquals(ExitCodes.STORE_UNAVAILABLE, r.code(), r.describe());
    assertEquals(1, r.errLines().length, r.describe());
    assertTrue(r.err().contains("connection refused to http://127.0.0.1:" + port), r.describe());
    assertFalse(r.err().contains("secret"), r.describe());
  }

  @Test
  void bug_exits70WithoutAStackTrace() throws IOException {
    Cli.Result r = publishWith(uri -> {
      throw new IllegalStateException("boom");
    });
    assertEquals(ExitCodes.INTERNAL, r.code(), r.describe());
    assertEquals("idem publish: internal error: boom\n", r.err(), r.describe());
    Path f = dir.resolve("payload");
    Cli.Result debug = new Cli().env("IDEM_DEBUG", "1").opener(uri -> {
      throw new IllegalStateException("boom");
    }).run("publish", "--file", f.toString(), "--pipeline", "p", "--window", "60s", "--schema", "1");
    assertTrue(debug.err().contains("at dev.idem.cli"), "IDEM_DEBUG prints the trace: " + debug.describe());
  }
}
