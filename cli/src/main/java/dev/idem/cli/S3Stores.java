package dev.idem.cli;

import dev.idem.core.proof.ProvenStore;
import dev.idem.store.s3.CredentialsProvider;
import dev.idem.store.s3.PointerMode;
import dev.idem.store.s3.S3Location;
import dev.idem.store.s3.S3ObjectStore;
import dev.idem.store.s3.S3StoreOptions;
import dev.idem.store.s3.S3StoreProver;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;

/**
 * The S3 half of {@link StoreUris} and {@link ExitCodes}: the one command-line class that names the S3
 * store, its credentials or the JDK's HTTP client. The JVM loads a class on first use, so a process
 * that never meets an {@code s3://} URI never loads this one, and with it none of {@code
 * dev.idem.store.s3} (its XML parser included) or {@code java.net.http}: {@code idem --help}, {@code idem
 * key} and a {@code file:} publish start without them (LazyStoreLoadingE2E checks it in a child JVM).
 * Nothing here reads or writes a store; opening one creates nothing.
 */
final class S3Stores {
  /** Where a process sets the pointer mode, as a refusal names it. */
  static final String POINTER_MODE_SETTING = "--pointer-mode or " + StoreOption.POINTER_MODE_ENV;

  private S3Stores() {}

  /**
   * Checks an {@code s3://} URI the way the S3 store reads it (bucket, prefix, {@code ?region=},
   * {@code ?addressing=}).
   *
   * @throws IllegalArgumentException with a one-line reason
   */
  static void validate(String uri) {
    S3Location.parse(uri, Map.of());
  }

  /**
   * The S3 store with endpoint, region and credentials from {@code env} (not {@code System.getenv()},
   * so tests and embedders can pass their own), proven before its first write. Credentials are resolved
   * lazily, on the first request: a missing or refused credential surfaces there as an auth failure.
   *
   * Every request waits for its connection and reply as {@code waits} says, and every request, retry
   * and credential fetch ends by its deadline.
   *
   * @param env the environment, with {@code --pointer-mode} over {@code IDEM_S3_POINTER_MODE}: unset, the
   *     store follows its marker's mode
   * @throws IllegalArgumentException for a bad location, {@code IDEM_S3_POINTER_MODE} or {@code
   *     IDEM_S3_UPLOAD_PARALLELISM} (multipart parts sent at once, 1-64, default 4), with a one-line reason
   */
  static ProvenStore open(String uri, Map<String, String> env, String creator, StoreWaits waits) {
    S3Location location = S3Location.parse(uri, env);
    S3StoreOptions.Builder options = S3StoreOptions.builder().pointerModeSetting(POINTER_MODE_SETTING);
    String mode = env.get(StoreOption.POINTER_MODE_ENV);
    if (mode != null && !mode.isBlank()) {
      options.pointerMode(PointerMode.parse(mode));
    }
    String parallelism = env.get("IDEM_S3_UPLOAD_PARALLELISM");
    if (parallelism != null && !parallelism.isBlank()) {
      options.uploadParallelism(parseParallelism(parallelism));
    }
    options.connectTimeout(waits.connectTimeout()).requestTimeout(waits.readTimeout()).deadline(waits.deadline());
    String home = env.getOrDefault("HOME", System.getProperty("user.home"));
    CredentialsProvider credentials = CredentialsProvider.standard(env, Path.of(home));
    S3ObjectStore s3 = S3ObjectStore.openOwningCredentials(location, credentials, options.build());
    return ProvenStore.wrap(s3, S3StoreProver.of(s3), creator, Clock.systemUTC());
  }

  private static int parseParallelism(String value) {
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("IDEM_S3_UPLOAD_PARALLELISM must be a number of parts 1-64, was '" + value
          + "'");
    }
  }

  /** Whether {@code t} (one link of a cause chain) says the credentials are missing, broken or refused. */
  static boolean isAuthFailure(Throwable t) {
    return S3ObjectStore.isAuthFailure(t);
  }
}
