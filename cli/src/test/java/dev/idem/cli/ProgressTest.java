package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** The progress report, driven by hand (no timer): whole lines in a log, one live line on a terminal. */
class ProgressTest {
  private final StringWriter err = new StringWriter();

  private Progress progress(boolean terminal) {
    return new Progress(new PrintWriter(err), terminal ? 200 : 0, elapsed -> ScanCommand.status("s3://b prefix=p/",
        elapsed * 3, elapsed * 15, elapsed));
  }

  @Test
  void report_notATerminal_wholeLinesWithKeysVersionsRateAndElapsed() {
    try (Progress p = progress(false)) {
      p.report(2000);
      p.report(4000);
    }
    assertEquals("idem: scan s3://b prefix=p/: 6,000 keys, 30,000 versions, 15,000 versions/s, 2s elapsed\n"
        + "idem: scan s3://b prefix=p/: 12,000 keys, 60,000 versions, 15,000 versions/s, 4s elapsed\n", err.toString());
  }

  @Test
  void report_terminal_oneLineRedrawnInPlaceAndErasedAtTheEnd() {
    try (Progress p = progress(true)) {
      p.report(1000);
      p.report(2000);
    }
    assertEquals("\ridem: scan s3://b prefix=p/: 3,000 keys, 15,000 versions, 15,000 versions/s, 1s elapsed\033[K"
        + "\ridem: scan s3://b prefix=p/: 6,000 keys, 30,000 versions, 15,000 versions/s, 2s elapsed\033[K"
        + "\r\033[K", err.toString());
  }

  @Test
  void report_terminal_fitsTheLineToItsWidthKeepingTheStartAndTheEnd() {
    try (Progress p = new Progress(new PrintWriter(err), 40, elapsed -> ScanCommand.status("s3://b prefix=p/",
        elapsed * 3, elapsed * 15, elapsed))) {
      p.report(1000);
    }
    // A line as wide as the terminal would wrap, and the next \r would then redraw only its last row.
    assertEquals("\ridem: scan s...0 versions/s, 1s elapsed\033[K" + "\r\033[K", err.toString());
  }

  @Test
  void fit_shortLinesUnchanged_longOnesCutInTheMiddle() {
    assertEquals("idem: short", Progress.fit("idem: short", 80));
    String line = "idem: publishing p/1/state-" + "a".repeat(64) + " to s3://b/p: 12.0 of 300.0 MiB sent (5s)";
    String fitted = Progress.fit(line, 60);
    assertEquals(59, fitted.length(), fitted);
    assertTrue(fitted.startsWith("idem: publishing p..."), fitted);
    assertTrue(fitted.endsWith("12.0 of 300.0 MiB sent (5s)"), fitted);
  }

  @Test
  void terminalDevice_onlyTtysAreTerminals() {
    assertTrue(Progress.terminalDevice("/dev/pts/3"));
    assertTrue(Progress.terminalDevice("/dev/tty1"));
    assertFalse(Progress.terminalDevice("/tmp/idem.log"), "stderr to a file gets whole lines");
    assertFalse(Progress.terminalDevice("pipe:[40213]"), "stderr to a pipe (a CI log) gets whole lines");
    assertFalse(Progress.terminalDevice("/dev/null"));
  }

  @Test
  void report_afterClose_dropped() {
    Progress p = progress(false);
    p.close();
    p.report(1000);
    assertEquals("", err.toString());
  }

  @Test
  void status_noTimeYet_rateZero() {
    assertEquals("scan file:/s prefix=: 0 keys, 0 versions, 0 versions/s, 0s elapsed",
        ScanCommand.status("file:/s prefix=", 0, 0, 0));
  }
}
