package dev.idem.core.scan;

import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Pointer;
import java.io.IOException;
import java.util.Objects;
import java.util.Optional;

/**
 * Whether the object a pointer names is in the store as the pointer describes it (G1 seen from the
 * reader's side). The one check behind both {@code idem pointer show} and the scan's pointer check, so
 * the two never disagree.
 *
 * <p>Existence is not enough: on an unversioned bucket a foreign writer (or a server that ignored a
 * conditional header) can replace the object, and a reader following the pointer then gets bytes the
 * pointer's SHA-256 does not match. So the stored SHA-256 and size are compared with the pointer's.
 * Read-only; an {@link IOException} from {@code stat} propagates and decides nothing.
 *
 * @param pointer the pointer checked
 * @param status what the store holds at the pointer's key
 * @param stored what {@code stat} reported, or {@code null} when the object is missing
 */
public record PointerTarget(Pointer pointer, Status status, ObjectInfo stored) {

  /** What the store holds at the key a pointer names. */
  public enum Status {
    /** An object with the pointer's SHA-256 and size: readers get the generation the pointer names. */
    MATCHES,
    /** No object: readers following the pointer find nothing. */
    MISSING,
    /** An object with another SHA-256 or size: readers would get bytes the pointer does not describe. */
    DIFFERENT
  }

  public PointerTarget {
    Objects.requireNonNull(pointer, "pointer");
    Objects.requireNonNull(status, "status");
    if ((stored == null) != (status == Status.MISSING)) {
      throw new IllegalArgumentException("stored must be null exactly when the object is MISSING");
    }
  }

  /** Stats the object {@code pointer} names and compares its SHA-256 and size with the pointer's. */
  public static PointerTarget check(ObjectStore store, Pointer pointer) throws IOException {
    Optional<ObjectInfo> stat = store.stat(pointer.key());
    if (stat.isEmpty()) {
      return new PointerTarget(pointer, Status.MISSING, null);
    }
    ObjectInfo s = stat.get();
    boolean same = s.sha256().equals(pointer.sha256()) && s.size() == pointer.size();
    return new PointerTarget(pointer, same ? Status.MATCHES : Status.DIFFERENT, s);
  }

  public boolean matches() {
    return status == Status.MATCHES;
  }

  /** One line for humans: what is wrong, or that nothing is. */
  public String describe(String storeName) {
    return switch (status) {
      case MATCHES -> "the pointer of " + pointer.pipeline() + " names " + pointer.key() + ", present with its sha256";
      case MISSING -> "the pointer of " + pointer.pipeline() + " names " + pointer.key() + ", which is not in " + storeName;
      case DIFFERENT -> "the pointer of " + pointer.pipeline() + " names " + pointer.key() + " with sha256 "
          + pointer.sha256() + " size " + pointer.size() + ", but " + storeName + " holds sha256 " + stored.sha256()
          + " size " + stored.size() + " there";
    };
  }
}
