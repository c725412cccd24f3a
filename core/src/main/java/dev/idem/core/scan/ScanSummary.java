package dev.idem.core.scan;

/**
 * Totals of one scan.
 *
 * @param prefix the prefix scanned
 * @param keys keys examined
 * @param entries history entries examined
 * @param benignDuplicateKeys keys written more than once with one content
 * @param divergentKeys keys with more than one content
 * @param complete false when a {@code maxKeys}/{@code maxTime} bound stopped the scan early
 */
public record ScanSummary(String prefix, long keys, long entries, long benignDuplicateKeys, long divergentKeys, boolean complete) {

  /** The reference script's closing line, byte for byte. */
  public String referenceLine() {
    return "scanned prefix=" + prefix + " divergent_keys=" + divergentKeys;
  }

  /** True when the gate should pass: nothing divergent and the whole prefix was read. */
  public boolean clean() {
    return divergentKeys == 0 && complete;
  }
}
