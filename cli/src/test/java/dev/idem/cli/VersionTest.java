package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code idem --version}: version, commit and build date, with "unknown" for what the build could not know. */
class VersionTest {
  @TempDir
  Path dir;

  @Test
  void version_printsCommitAndBuildDate() {
    Cli.Result r = new Cli().run("--version");
    assertEquals(0, r.code(), r.describe());
    String first = r.outLines()[0];
    assertTrue(first.matches("idem \\S+ \\(commit (unknown|[0-9a-f]{7,40}(-dirty)?), built \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\)"),
        first);
  }

  @Test
  void value_missingOrUnfilteredOrBlank_isUnknown() {
    Properties p = new Properties();
    p.setProperty("commit", "${idem.commit}");
    p.setProperty("built", " ");
    assertEquals("unknown", IdemCommand.Version.value(p, "commit"));
    assertEquals("unknown", IdemCommand.Version.value(p, "built"));
    assertEquals("unknown", IdemCommand.Version.value(p, "version"));
  }

  /** The script the build runs, on a source tree without .git (a tarball), and with CI's IDEM_COMMIT. */
  String buildInfo(String commitEnv) throws Exception {
    Path script = Path.of("src/build/build-info.sh").toAbsolutePath();
    Path out = dir.resolve("build-info.properties");
    ProcessBuilder pb = new ProcessBuilder("bash", script.toString(), out.toString(), dir.toString()).inheritIO();
    pb.environment().remove("IDEM_COMMIT");
    pb.environment().put("SOURCE_DATE_EPOCH", "1726000000");
    if (commitEnv != null) {
      pb.environment().put("IDEM_COMMIT", commitEnv);
    }
    Process p = pb.start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue());
    return Files.readString(out);
  }

  @Test
  void buildInfo_sourceTreeWithoutGit_commitUnknown() throws Exception {
    assertEquals("idem.commit=unknown\nidem.build.date=2024-09-10T20:26:40Z\n", buildInfo(null));
  }

  @Test
  void buildInfo_commitFromEnvironment_winsOverGit() throws Exception {
    assertTrue(buildInfo("0123456789ab").startsWith("idem.commit=0123456789ab\n"));
  }
}
