package dev.idem.store.s3;

import dev.idem.core.Names;
import dev.idem.core.Sha256;

/**
 * Where everything lives under the store's prefix {@code P} in the bucket:
 *
 * <pre>
 * P{key}                                    published objects, at their logical keys
 * P_idem/evidence/{key}!{sha256}            bytes (or an empty marker) of a DIVERGENT attempt
 * P_idem/pointers/{pipeline}/latest         the pointer (CAS mode), or a plain copy (LOG mode)
 * P_idem/pointers/{pipeline}/log/{seq}      LOG mode entries, seq zero-padded to 20 digits
 * P_idem/retired/{pipeline}/{window_start}  retirement marks gc creates ({@link RetirementObjects}),
 *                                           window_start zero-padded to 20 digits; the highest counts
 * </pre>
 *
 * Keys under {@code _idem/} are the store's own: {@code putIfAbsent} refuses them, and listings and
 * history skip them. Idem keys start with a pipeline name ({@code [a-z0-9]…}), so they never collide.
 *
 * <p>Evidence keys end in {@code !sha256}: {@code !} sorts below every character an idem key may hold
 * ({@code [a-z0-9._/-]}), so evidence keys list in the same order as their logical keys, which lets
 * the history merge the two listings in one pass. (A legacy key containing a space or {@code !} can
 * break that order; the merge then reports its evidence as a separate group, never drops it.)
 */
final class KeyLayout {
  static final String INTERNAL = "_idem/";
  private static final String EVIDENCE = INTERNAL + "evidence/";
  private static final String POINTERS = INTERNAL + "pointers/";
  private static final String RETIRED = INTERNAL + "retired/";
  private static final int SEQ_DIGITS = 20;
  /** The highest code point: a start-after marker past every key that begins with a given prefix. */
  private static final String MAX_CHAR = new String(Character.toChars(Character.MAX_CODE_POINT));

  private final String prefix;
  /** {@code prefix + INTERNAL}, made once: the scan asks {@link #isInternal} of every listed key. */
  private final String internal;

  KeyLayout(String prefix) {
    this.prefix = prefix;
    this.internal = prefix + INTERNAL;
  }

  String prefix() {
    return prefix;
  }

  /** The bucket key of a logical key. */
  String object(String key) {
    return prefix + key;
  }

  /** The logical key of a bucket key under the prefix. */
  String logical(String objectKey) {
    return objectKey.substring(prefix.length());
  }

  /** Checks a logical key a caller wants to write: safe, and not in the store's own area. */
  static String requireWritableKey(String key) {
    Names.requireSafeKey(key);
    if (key.startsWith(INTERNAL) || key.equals("_idem")) {
      throw new IllegalArgumentException("key " + key + " is inside _idem/, which the store reserves");
    }
    return key;
  }

  String internalPrefix() {
    return prefix + INTERNAL;
  }

  /**
   * A ListObjectsV2 start-after that skips the whole internal area. Not for ListObjectVersions: a
   * key-marker that is no key is misread (moto) or refused (LocalS3) there.
   */
  String afterInternal() {
    return prefix + INTERNAL + MAX_CHAR;
  }

  boolean isInternal(String objectKey) {
    return objectKey.startsWith(internal);
  }

  String evidencePrefix() {
    return prefix + EVIDENCE;
  }

  /**
   * The evidence listing's counterpart of a marker in the object listing: the evidence of a key sorts
   * after it exactly when the key sorts after {@code objectMarker}, for keys without characters below
   * {@code !} (every key idem publishes, and so every key that has evidence).
   */
  String evidenceMarker(String objectMarker) {
    return evidencePrefix() + logical(objectMarker) + "!" + MAX_CHAR;
  }

  /** The logical key that records an attempt with {@code sha256} at {@code key}. */
  static String evidenceKey(String key, String sha256) {
    return EVIDENCE + key + "!" + sha256;
  }

  /** An evidence object: its logical key and the attempt's SHA-256. */
  record Evidence(String key, String sha256) {}

  /** Parses a bucket key under {@link #evidencePrefix()}; {@code null} for anything else. */
  Evidence parseEvidence(String objectKey) {
    if (!objectKey.startsWith(evidencePrefix())) {
      return null;
    }
    String rest = objectKey.substring(evidencePrefix().length());
    int bang = rest.lastIndexOf('!');
    if (bang <= 0 || !Sha256.isHex(rest.substring(bang + 1))) {
      return null;
    }
    return new Evidence(rest.substring(0, bang), rest.substring(bang + 1));
  }

  String pointersPrefix() {
    return prefix + POINTERS;
  }

  String latest(String pipeline) {
    return prefix + POINTERS + pipeline + "/latest";
  }

  /** Where the pipeline's retirement marks are; throws {@link IllegalArgumentException} for a bad name. */
  String retiredPrefix(String pipeline) {
    return prefix + RETIRED + Names.requirePipeline(pipeline) + "/";
  }

  /** The mark retiring the pipeline's windows up to {@code windowStart}, zero-padded to 20 digits. */
  String retiredEntry(String pipeline, long windowStart) {
    if (windowStart < 0) {
      throw new IllegalArgumentException("window start must be >= 0, was " + windowStart);
    }
    String digits = Long.toString(windowStart);
    return retiredPrefix(pipeline) + "0".repeat(SEQ_DIGITS - digits.length()) + digits;
  }

  /** The window start of a mark's key under {@code retiredPrefix}, or {@code -1} for anything else. */
  static long parseRetired(String objectKey, String retiredPrefix) {
    if (!objectKey.startsWith(retiredPrefix) || objectKey.length() != retiredPrefix.length() + SEQ_DIGITS) {
      return -1;
    }
    String digits = objectKey.substring(retiredPrefix.length());
    if (!digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return -1;
    }
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  String logPrefix(String pipeline) {
    return prefix + POINTERS + pipeline + "/log/";
  }

  String logEntry(String pipeline, long seq) {
    if (seq < 1) {
      throw new IllegalArgumentException("log sequence numbers start at 1, was " + seq);
    }
    String digits = Long.toString(seq);
    return logPrefix(pipeline) + "0".repeat(SEQ_DIGITS - digits.length()) + digits;
  }

  /** The sequence number of a log entry key under {@code logPrefix}, or {@code -1} for anything else. */
  static long parseSeq(String objectKey, String logPrefix) {
    if (!objectKey.startsWith(logPrefix) || objectKey.length() != logPrefix.length() + SEQ_DIGITS) {
      return -1;
    }
    String digits = objectKey.substring(logPrefix.length());
    for (int i = 0; i < digits.length(); i++) {
      if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
        return -1;
      }
    }
    try {
      long seq = Long.parseLong(digits);
      return seq >= 1 ? seq : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
