package dev.idem.store.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.idem.core.Sha256;
import dev.idem.core.store.PutStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One create-only file per publish attempt: names, content, and what a torn record still says. */
class RecordsTest {
  private static final String SHA = Sha256.EMPTY;
  private static final String OTHER = Sha256.of(new byte[] {1});

  @TempDir Path dir;

  private ContainedFs fs() {
    return new ContainedFs(dir, FsOps.real());
  }

  @Test
  void write_twoAttemptsOnOneObject_twoFilesReadBackOldestFirst() throws IOException {
    RecordLine a = new RecordLine(Instant.parse("2024-09-10T20:27:00Z"), PutStatus.CREATED, SHA, 0, "w1", 4);
    RecordLine b = new RecordLine(Instant.parse("2024-09-10T20:28:00Z"), PutStatus.DIVERGENT, OTHER, 1, "w2", null);
    Records.write(fs(), FsOps.real(), dir, "state-x", b);
    Records.write(fs(), FsOps.real(), dir, "state-x", a);
    Records.write(fs(), FsOps.real(), dir, "state-y", a);

    List<Path> files = Records.filesOf(fs(), dir, "state-x");

    assertEquals(2, files.size(), files.toString());
    assertEquals(List.of(a, b), Records.read(fs(), files));
  }

  @Test
  void read_contentTornByACrash_statusAndHashFromTheName() throws IOException {
    Path torn = dir.resolve("state-x!DIVERGENT." + OTHER + ".00000000000000ab");
    Files.writeString(torn, "v1 2024-09-10T20:2"); // killed mid-write
    Files.setLastModifiedTime(torn, FileTime.from(Instant.parse("2024-09-10T20:30:00Z")));

    List<RecordLine> lines = Records.read(fs(), Records.filesOf(fs(), dir, "state-x"));

    assertEquals(List.of(new RecordLine(Instant.parse("2024-09-10T20:30:00Z"), PutStatus.DIVERGENT, OTHER, -1, null, null)),
        lines);
  }

  @Test
  void read_contentContradictsTheName_nameWins() throws IOException {
    Path f = dir.resolve("state-x!DIVERGENT." + OTHER + ".00000000000000ab");
    Files.writeString(f, new RecordLine(Instant.EPOCH, PutStatus.CREATED, SHA, 3, "w", 1).format());

    RecordLine l = Records.read(fs(), List.of(f)).get(0);

    assertEquals(PutStatus.DIVERGENT, l.status());
    assertEquals(OTHER, l.sha256());
  }

  @Test
  void objectNameOf_namesThatAreNotRecords_null() {
    assertEquals("state-x", Records.objectNameOf("state-x!CREATED." + SHA + ".0123456789abcdef"));
    assertEquals("a!b", Records.objectNameOf("a!b!IDENTICAL." + SHA + ".0123456789abcdef"));
    for (String bad : List.of("state-x", "!CREATED." + SHA + ".0123456789abcdef", "x!MAYBE." + SHA + ".0123456789abcdef",
        "x!CREATED.abc.0123456789abcdef", "x!CREATED." + SHA + ".0123", "x!CREATED." + SHA, "x.log")) {
      assertNull(Records.objectNameOf(bad), bad);
    }
  }
}
