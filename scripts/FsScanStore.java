package dev.idem.store.fs;

import dev.idem.core.RunSpec;
import dev.idem.core.Window;
import dev.idem.core.store.Payload;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Fills a filesystem store for scripts/fs-scan-million.sh: KEYS keys published through {@link
 * FsObjectStore} itself (so objects, records and directories are exactly what idem writes), spread over
 * 10 pipelines with one key per 60 s window, OBJECT_BYTES bytes each; every 97th key is published a
 * second time with other bytes (DIVERGENT, its evidence kept). The store is a benchmark fixture, so its
 * filesystem seam skips fsync: the scan reads what is on disk, whether or not it was made durable.
 *
 * <p>It lives in the store's package, since the filesystem seam is not public API, so it is compiled
 * rather than run from source (classpath CP: the core and store-fs jars): {@code javac -d DIR -cp CP
 * scripts/FsScanStore.java}, then {@code java -cp DIR:CP dev.idem.store.fs.FsScanStore ROOT KEYS OBJECT_BYTES}.
 */
public class FsScanStore {
  public static void main(String[] args) throws Exception {
    Path root = Path.of(args[0]);
    int keys = Integer.parseInt(args[1]);
    int size = Integer.parseInt(args[2]);
    FsOps real = FsOps.real();
    FsOps noSync = (FsOps) Proxy.newProxyInstance(FsOps.class.getClassLoader(), new Class<?>[] {FsOps.class},
        (proxy, method, a) -> {
          if (method.getName().equals("force") || method.getName().equals("fsyncDirectory")) {
            return null;
          }
          try {
            return method.invoke(real, a);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    FsObjectStore.Options options = FsObjectStore.Options.defaults().withExistsCacheSize(0).withOps(noSync);
    long start = System.nanoTime();
    try (FsObjectStore store = FsObjectStore.open(root, options)) {
      byte[] body = new byte[size];
      for (int i = 0; i < keys; i++) {
        String pipeline = "p" + (i % 10);
        long windowStart = 1_700_000_000L + 60L * (i / 10);
        String key = RunSpec.of(pipeline, new Window(windowStart, 60), 1).outputKey().toString();
        Arrays.fill(body, (byte) ('a' + i % 26));
        byte[] label = ("key " + i + "\n").getBytes(StandardCharsets.UTF_8);
        System.arraycopy(label, 0, body, 0, Math.min(label.length, size));
        store.putIfAbsent(key, Payload.ofBytes(body.clone()), "fill-a");
        if (i % 97 == 0) {
          byte[] other = body.clone();
          other[size - 1] ^= 1;
          store.putIfAbsent(key, Payload.ofBytes(other), "fill-b");
        }
        if ((i + 1) % 100_000 == 0) {
          System.err.printf("%,d keys in %d s%n", i + 1, (System.nanoTime() - start) / 1_000_000_000L);
        }
      }
    }
  }
}
