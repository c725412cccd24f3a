package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.store.s3.testing.S3ProxyServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code IDEM_S3_UPLOAD_PARALLELISM}: read by {@code idem publish} against S3Proxy, refused with exit 2 when bad. */
class S3UploadCommandTest {
  static S3ProxyServer server;

  @TempDir
  Path dir;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3ProxyServer.shared();
  }

  private Cli s3Cli() {
    return Cli.onS3(server, dir);
  }

  private Cli.Result publish(Cli cli, String store) throws Exception {
    Path f = Files.writeString(dir.resolve("rows"), "rows\n");
    return cli.run("publish", "--file", f.toString(), "--pipeline", "border-state", "--window", "60s",
        "--at", "1726000030", "--schema", "3", "--store", store, "--writer", "ci");
  }

  @Test
  void publish_badUploadParallelism_exit2OneLineNothingWritten() throws Exception {
    String bucket = server.createBucket(false);
    for (String bad : List.of("lots", "0", "65")) {
      Cli.Result r = publish(s3Cli().env("IDEM_S3_UPLOAD_PARALLELISM", bad), "s3://" + bucket + "/exports");
      assertEquals(ExitCodes.USAGE, r.code(), r.describe());
      assertEquals(1, r.errLines().length, r.describe());
      assertTrue(r.err().contains("upload parallelism must be 1-64, was " + bad)
          || r.err().contains("IDEM_S3_UPLOAD_PARALLELISM must be a number of parts 1-64, was '" + bad + "'"),
          r.describe());
    }
    assertEquals(List.of(), server.client().listObjects(bucket, "", null, null, 10).objects());
  }

  @Test
  void publish_uploadParallelismSet_publishes() throws Exception {
    String bucket = server.createBucket(false);
    Cli.Result r = publish(s3Cli().env("IDEM_S3_UPLOAD_PARALLELISM", "2"), "s3://" + bucket + "/exports");
    assertEquals(0, r.code(), r.describe());
    assertTrue(r.out().contains("CREATED"), r.describe());
  }
}
