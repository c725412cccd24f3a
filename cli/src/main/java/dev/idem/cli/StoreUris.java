package dev.idem.cli;

import dev.idem.core.proof.ProvenStore;
import dev.idem.store.fs.FsObjectStore;
import dev.idem.store.fs.FsStoreProver;
import java.time.Clock;
import java.io.IOException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Map;

/**
 * The one place where a store URI becomes a store. Accepted forms:
 *
 * <ul>
 *   <li>{@code file:PATH} — a filesystem store rooted at PATH (relative to the working directory,
 *       or absolute; {@code file:///abs} also works). The default is {@code file:.idem}.
 *   <li>{@code s3://bucket/prefix} — an S3 store; endpoint, region and credentials come from the
 *       standard {@code AWS_*} environment ({@code AWS_ENDPOINT_URL}, {@code AWS_REGION}, {@code
 *       AWS_ACCESS_KEY_ID}, {@code AWS_SECRET_ACCESS_KEY}, {@code AWS_SESSION_TOKEN}, {@code
 *       AWS_PROFILE}); {@code IDEM_S3_POINTER_MODE=log} picks the S3 store's log pointer mode for
 *       servers whose {@code If-Match} is not atomic; {@code IDEM_S3_UPLOAD_PARALLELISM} (1-64, default
 *       4) how many multipart parts are sent at once.
 * </ul>
 *
 * Anything else is a usage error with a one-line message; nothing is opened or created. Every store is
 * proven before its first write ({@link ProvenStore}): a store that fails a probe, or whose marker
 * names another pointer mode, is refused. The S3 store is reached only through {@link S3Stores}, so
 * the S3, HTTP and XML classes are loaded only for an {@code s3://} URI.
 */
public final class StoreUris {
  public static final String ENV = "IDEM_STORE";
  public static final String DEFAULT = "file:.idem";

  /** A parsed store URI. */
  public sealed interface StoreUri permits FileUri, S3Uri {}

  /** {@code file:PATH}. */
  public record FileUri(Path root) implements StoreUri {}

  /** {@code s3://bucket/prefix[?region=R&addressing=path|virtual]}, as the S3 store's {@code S3Location} reads it. */
  public record S3Uri(String uri) implements StoreUri {}

  private StoreUris() {}

  /** The flag's value, else {@code IDEM_STORE}, else {@value #DEFAULT}. */
  public static String choose(String flag, Map<String, String> env) {
    if (flag != null && !flag.isEmpty()) {
      return flag;
    }
    String fromEnv = env.get(ENV);
    return fromEnv != null && !fromEnv.isEmpty() ? fromEnv : DEFAULT;
  }

  /**
   * Parses a store URI.
   *
   * @throws UsageException for anything but the accepted forms, with a one-line reason
   */
  public static StoreUri parse(String uri) {
    if (uri == null || uri.isBlank()) {
      throw bad(uri, "empty");
    }
    if (uri.startsWith("file:")) {
      String path = uri.substring("file:".length());
      if (path.startsWith("//")) {
        // file:///abs is the URI spelling of /abs; file://host/... names another machine.
        if (!path.startsWith("///")) {
          throw bad(uri, "file URIs name a local path: file:PATH or file:///absolute/path");
        }
        path = path.substring(2);
      }
      if (path.isEmpty()) {
        throw bad(uri, "no path after file:");
      }
      try {
        return new FileUri(Path.of(path));
      } catch (InvalidPathException e) {
        throw bad(uri, "invalid path: " + e.getReason());
      }
    }
    if (uri.startsWith("s3://")) {
      try {
        // Full validation (bucket, prefix, ?region=, ?addressing=) is the S3 store's own.
        S3Stores.validate(uri);
      } catch (IllegalArgumentException e) {
        throw bad(uri, e.getMessage());
      }
      return new S3Uri(uri);
    }
    int colon = uri.indexOf(':');
    String scheme = colon > 0 ? "scheme '" + uri.substring(0, colon) + "' is not supported" : "no scheme";
    throw bad(uri, scheme);
  }

  /**
   * Opens the store {@code uri} names, wrapped so that it is proven before its first write ({@link
   * ProvenStore}); see the class comment for the forms and environment. Opening reads and creates
   * nothing. Every wait on the store ends by {@code waits}' deadline: each request, retry and
   * credential fetch of an S3 store (whose connections and replies are waited for as {@code waits}
   * says), each lock wait of a filesystem store.
   */
  static ProvenStore open(String uri, Map<String, String> env, StoreWaits waits) throws IOException {
    StoreUri parsed = parse(uri);
    String creator = "idem " + IdemCommand.Version.version();
    if (parsed instanceof FileUri f) {
      FsObjectStore fs = FsObjectStore.open(f.root(), FsObjectStore.Options.defaults().withDeadline(waits.deadline()));
      return ProvenStore.wrap(fs, FsStoreProver.of(fs), creator, Clock.systemUTC());
    }
    try {
      return S3Stores.open(((S3Uri) parsed).uri(), env, creator, waits);
    } catch (IllegalArgumentException e) {
      throw bad(uri, e.getMessage());
    }
  }

  private static UsageException bad(String uri, String reason) {
    return new UsageException("bad store URI " + quote(uri) + ": " + reason
        + " (expected file:PATH or s3://bucket/prefix)");
  }

  private static String quote(String s) {
    return s == null ? "null" : "'" + s.replaceAll("\\p{Cntrl}", "?") + "'";
  }
}
