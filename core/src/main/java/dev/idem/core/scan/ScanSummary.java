package dev.idem.core.scan;

import java.util.List;

/**
 * Totals of one scan.
 *
 * @param prefix the prefix scanned
 * @param keys keys examined
 * @param entries history entries examined
 * @param benignDuplicateKeys keys written more than once with one content
 * @param divergentKeys keys with more than one content
 * @param complete false when a {@code maxKeys}/{@code maxTime} bound stopped the scan early
 * @param danglingPointers keys named by the pointer of a scanned pipeline that are not in the store (a
 *     broken G1: readers following that pointer find nothing)
 */
public record ScanSummary(String prefix, long keys, long entries, long benignDuplicateKeys, long divergentKeys,
    boolean complete, List<String> danglingPointers) {

  public ScanSummary {
    danglingPointers = List.copyOf(danglingPointers);
  }

  /** The reference script's closing line, byte for byte. */
  public String referenceLine() {
    return "scanned prefix=" + prefix + " divergent_keys=" + divergentKeys;
  }

  /** True when the gate should pass: nothing divergent, no dangling pointer, the whole prefix read. */
  public boolean clean() {
    return divergentKeys == 0 && complete && danglingPointers.isEmpty();
  }
}
