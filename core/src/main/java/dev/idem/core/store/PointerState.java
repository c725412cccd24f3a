package dev.idem.core.store;

import java.util.Objects;

/**
 * A pointer as read, with the store's opaque version token for a later compare-and-swap (a content
 * hash on the filesystem, an ETag or a log sequence number on S3).
 */
public record PointerState(Pointer pointer, String token) {
  public PointerState {
    Objects.requireNonNull(pointer, "pointer");
    Objects.requireNonNull(token, "token");
  }
}
