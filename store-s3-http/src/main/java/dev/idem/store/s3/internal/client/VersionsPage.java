package dev.idem.store.s3.internal.client;

import java.util.List;

/**
 * One page of ListObjectVersions, entries in the listing's order: key ascending, the key's latest entry
 * first, then its others newest first as the server gives them.
 *
 * @param versions versions and delete markers
 * @param truncated whether another page follows
 * @param nextKeyMarker where the next page starts (set when truncated)
 * @param nextVersionIdMarker with {@code nextKeyMarker}; may be {@code null}
 * @param commonPrefixes with a delimiter: the prefixes that roll up the keys below them, ascending
 */
public record VersionsPage(List<ObjectVersion> versions, boolean truncated, String nextKeyMarker,
    String nextVersionIdMarker, List<String> commonPrefixes) {
  public VersionsPage {
    versions = List.copyOf(versions);
    commonPrefixes = List.copyOf(commonPrefixes);
  }
}
