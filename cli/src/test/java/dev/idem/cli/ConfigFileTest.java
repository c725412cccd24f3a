package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The configuration file: settings a host states once, under the environment and every flag (flag over
 * environment over file), a profile picked by {@code IDEM_PROFILE}, shown by {@code idem doctor}; and a
 * bad file refused before anything is read or written.
 */
class ConfigFileTest {
  @TempDir
  Path dir;

  Path home;
  Path payload;

  @BeforeEach
  void setUp() throws Exception {
    home = Files.createDirectories(dir.resolve("home"));
    payload = Files.writeString(dir.resolve("rows"), "rows\n");
  }

  Path config(String text) throws Exception {
    Path f = Files.createDirectories(home.resolve(".config/idem")).resolve("config");
    return Files.writeString(f, text);
  }

  Cli cli() {
    return new Cli().env("HOME", home.toString());
  }

  Cli.Result publish(Cli cli, String... extra) {
    List<String> a = new java.util.ArrayList<>(List.of("publish", "--file", payload.toString(), "--pipeline", "orders",
        "--window", "60s", "--at", "1726000030", "--schema", "1", "--json"));
    a.addAll(List.of(extra));
    return cli.run(a.toArray(new String[0]));
  }

  String store(String name) {
    return "file:" + dir.resolve(name);
  }

  @Test
  void publish_settingsFromTheDefaultFile_flagOverEnvironmentOverFile() throws Exception {
    config("# this host\n[default]\nstore = " + store("from-file") + "\nwriter = file-writer\n\n"
        + "[profile other]\nstore = " + store("from-profile") + "\n");

    Cli.Result fromFile = publish(cli());
    assertEquals(0, fromFile.code(), fromFile.describe());
    assertEquals("file-writer", MiniJson.object(fromFile.out()).get("writer"), fromFile.describe());
    assertTrue(Files.isDirectory(dir.resolve("from-file/orders")), "the file's store");
    assertFalse(fromFile.err().contains("no --store or IDEM_STORE given"), fromFile.describe());

    Cli.Result fromEnv = publish(cli().env("IDEM_STORE", store("from-env")).env("IDEM_WRITER", "env-writer"));
    assertEquals("env-writer", MiniJson.object(fromEnv.out()).get("writer"), fromEnv.describe());
    assertTrue(Files.isDirectory(dir.resolve("from-env/orders")), "the environment over the file");

    Cli.Result fromFlag = publish(cli().env("IDEM_STORE", store("from-env")), "--store", store("from-flag"),
        "--writer", "flag-writer");
    assertEquals("flag-writer", MiniJson.object(fromFlag.out()).get("writer"), fromFlag.describe());
    assertTrue(Files.isDirectory(dir.resolve("from-flag/orders")), "the flag over both");

    Cli.Result profile = publish(cli().env("IDEM_PROFILE", "other"));
    assertEquals(0, profile.code(), profile.describe());
    assertTrue(Files.isDirectory(dir.resolve("from-profile/orders")), "IDEM_PROFILE picks the section");
    assertTrue(((String) MiniJson.object(profile.out()).get("writer")).contains(":"),
        "the profile sets no writer: HOST:PID, not the default section's");
  }

  @Test
  void doctor_showsTheFileAndWhereEachSettingCameFrom() throws Exception {
    Path f = config("[default]\nstore = " + store("s") + "\nwriter = file-writer\ns3_pointer_mode = log\n");
    Cli.Result r = cli().env("IDEM_WRITER", "env-writer").run("doctor");
    assertEquals(0, r.code(), r.describe());
    assertTrue(r.out().contains("config: " + f + " (profile default)\n"
        + "  store = " + store("s") + " (file)\n"
        + "  writer = env-writer (environment IDEM_WRITER)\n"
        + "  s3_pointer_mode = log (file)\n"), r.describe());

    Cli.Result flag = cli().run("doctor", "--store", store("t"), "--json");
    @SuppressWarnings("unchecked")
    Map<String, Object> config = (Map<String, Object>) MiniJson.object(flag.out()).get("config");
    assertEquals(f.toString(), config.get("file"), flag.describe());
    @SuppressWarnings("unchecked")
    Map<String, Object> store = ((List<Map<String, Object>>) config.get("settings")).get(0);
    assertEquals(store("t"), store.get("value"));
    assertEquals("flag --store", store.get("source"));

    Cli.Result none = new Cli().env("HOME", dir.resolve("nohome").toString()).run("doctor", "--store", store("u"));
    assertTrue(none.out().contains("config: none (" + dir.resolve("nohome/.config/idem/config") + " does not exist)\n"
        + "  store = " + store("u") + " (flag --store)\n"), none.describe());
  }

  @Test
  void storeCommands_timeoutsFromTheFile_shownByDoctorAndApplied() throws Exception {
    config("[default]\nstore = " + store("s") + "\nconnect_timeout = 3s\nread_timeout = 20s\nmax_time = 90s\n");
    Cli.Result r = cli().run("doctor");
    assertEquals(0, r.code(), r.describe());
    for (String line : List.of("  connect_timeout = 3s (file)\n", "  read_timeout = 20s (file)\n", "  max_time = 90s (file)\n")) {
      assertTrue(r.out().contains(line), line + r.describe());
    }

    config("[default]\nstore = " + store("s") + "\nmax_time = soon\n");
    Cli.Result bad = cli().run("pointer", "show", "--pipeline", "orders");
    assertEquals(2, bad.code(), bad.describe());
    assertTrue(bad.err().contains("IDEM_MAX_TIME: "), bad.describe());
  }

  @Test
  void anyCommand_badFile_exit2OneLineNamingTheLineNothingWritten() throws Exception {
    for (String[] bad : List.of(
        new String[] {"[default]\nstroe = x\n", "line 2: unknown setting 'stroe' (known: store, writer,"},
        new String[] {"store = x\n", "line 1: a setting outside a section; start with [default]"},
        new String[] {"[default]\nstore\n", "line 2: not key = value"},
        new String[] {"[prod]\n", "line 1: a section is [default] or [profile NAME], was [prod]"},
        new String[] {"[default]\nstore = a\nstore = b\n", "line 3: 'store' set twice in [default]"})) {
      Path f = config(bad[0]);
      Cli.Result r = publish(cli(), "--store", store("never"));
      assertEquals(ExitCodes.USAGE, r.code(), r.describe());
      assertTrue(r.err().contains("configuration file " + f + " " + bad[1]), r.describe());
      assertEquals(1, r.errLines().length, r.describe());
    }
    config("[default]\nstore = " + store("never") + "\n");
    Cli.Result profile = publish(cli().env("IDEM_PROFILE", "prod"));
    assertEquals(ExitCodes.USAGE, profile.code(), profile.describe());
    assertTrue(profile.err().contains("profile prod (IDEM_PROFILE) is not in configuration file "), profile.describe());
    Cli.Result named = publish(cli().env("IDEM_CONFIG_FILE", dir.resolve("missing").toString()));
    assertEquals(ExitCodes.USAGE, named.code(), named.describe());
    assertTrue(named.err().contains(dir.resolve("missing") + " (IDEM_CONFIG_FILE) does not exist"), named.describe());
    assertFalse(Files.exists(dir.resolve("never")), "nothing written");
  }

  @Test
  void load_xdgConfigHomeAndNamedFile_orderOfLookup() throws Exception {
    Path xdg = Files.createDirectories(dir.resolve("xdg/idem"));
    Files.writeString(xdg.resolve("config"), "[default]\nwriter = xdg\n");
    config("[default]\nwriter = home\n");
    assertEquals("xdg", Settings.load(Map.of("HOME", home.toString(), "XDG_CONFIG_HOME", dir.resolve("xdg").toString()))
        .env().get("IDEM_WRITER"));
    Path named = Files.writeString(dir.resolve("named"), "[default]\nwriter = named\n");
    assertEquals("named", Settings.load(Map.of("HOME", home.toString(), "IDEM_CONFIG_FILE", named.toString()))
        .env().get("IDEM_WRITER"));
    assertEquals("home", Settings.load(Map.of("HOME", home.toString())).env().get("IDEM_WRITER"));
    assertEquals("env", Settings.load(Map.of("HOME", home.toString(), "IDEM_WRITER", "env")).env().get("IDEM_WRITER"));
    assertEquals("home", Settings.load(Map.of("HOME", home.toString(), "IDEM_WRITER", "")).env().get("IDEM_WRITER"),
        "an empty variable is unset");
  }
}
