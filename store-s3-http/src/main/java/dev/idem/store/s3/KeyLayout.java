package dev.idem.store.s3;

import dev.idem.core.Names;
import dev.idem.core.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * Where everything lives under the store's prefix {@code P} in the bucket:
 *
 * <pre>
 * P{key}                                    published objects, at their logical keys
 * P_idem/evidence/{key}!{sha256}.{attempt}  the divergence marker of a DIVERGENT attempt (P8): empty,
 *                                           written first; {attempt} is the publish call's random id
 * P_idem/evidence/{key}!{sha256}            the bytes of a DIVERGENT attempt (or, written by earlier
 *                                           versions without bytes, an empty marker)
 * P_idem/pointers/{pipeline}/latest         the pointer (CAS mode), or a plain copy (LOG mode)
 * P_idem/pointers/{pipeline}/log/{seq}      LOG mode entries, seq zero-padded to 20 digits
 * P_idem/retired/{pipeline}/{window_start}  retirement marks gc creates ({@link RetirementObjects}),
 *                                           window_start zero-padded to 20 digits; the highest counts
 * P_idem/acks/{key}!{id}                    an operator's acknowledgement of a divergent key
 *                                           ({@link AcknowledgementObjects}), id 16 random hex digits
 * P_idem/claims/{key}/claim.{id}            a writer's advisory claim on a key ({@link ClaimObjects}),
 *                                           id 16 random hex digits
 * </pre>
 *
 * Keys under {@code _idem/} are the store's own: {@code putIfAbsent} refuses them, and listings and
 * history skip them. Idem keys start with a pipeline name ({@code [a-z0-9]…}), so they never collide.
 *
 * <p>Evidence keys, bytes and markers alike, continue their logical key with {@code !}: {@code !} sorts
 * below every character an idem key may hold ({@code [a-z0-9._/-]}), so evidence keys list in the same
 * order as their logical keys, and are cut at the same places ({@link #evidenceMarker}), which lets the
 * history merge the two listings in one pass. A marker sorts right after the bytes of its attempt. (A
 * legacy key containing a space or {@code !} can break that order; the merge then reports its evidence
 * as a separate group, never drops it.)
 *
 * <p>S3 keys are at most {@value #MAX_OBJECT_KEY_BYTES} bytes of UTF-8, and a marker key is the
 * longest key a publish may write ({@link #DIVERGENCE_OVERHEAD} bytes longer than its object's): a key
 * whose marker would not fit is refused before anything is written ({@link #requirePublishableKey}),
 * since a divergence met there could never be recorded.
 */
final class KeyLayout {
  static final String INTERNAL = "_idem/";
  /** The longest key S3 stores, in bytes of UTF-8. */
  static final int MAX_OBJECT_KEY_BYTES = 1024;
  /** Length of a publish call's attempt id: 16 random bytes in hex. */
  static final int ATTEMPT_ID_LENGTH = 32;
  private static final String EVIDENCE = INTERNAL + "evidence/";
  /** How much longer a divergence marker's key is than its object's: {@code _idem/evidence/}, {@code !sha256.attempt}. */
  static final int DIVERGENCE_OVERHEAD = EVIDENCE.length() + 1 + 64 + 1 + ATTEMPT_ID_LENGTH;
  private static final String POINTERS = INTERNAL + "pointers/";
  private static final String RETIRED = INTERNAL + "retired/";
  private static final String CLAIMS = INTERNAL + "claims/";
  /** The name of a claim entry under its key: {@code claim.} and 16 lowercase hex digits. */
  private static final Pattern CLAIM_ID = Pattern.compile("claim\\.[0-9a-f]{16}");
  private static final int CLAIM_ID_LENGTH = "claim.".length() + 16;
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

  /**
   * Checks a logical key a caller wants to publish: writable ({@link #requireWritableKey}), and short
   * enough under this prefix that its divergence marker fits in an S3 key, so a divergence met there
   * can be recorded (P8).
   *
   * @throws IllegalArgumentException naming both lengths otherwise; nothing has been written
   */
  String requirePublishableKey(String key) {
    requireWritableKey(key);
    int object = object(key).getBytes(StandardCharsets.UTF_8).length;
    if (object + DIVERGENCE_OVERHEAD > MAX_OBJECT_KEY_BYTES) {
      throw new IllegalArgumentException("key " + key + " is too long to publish under prefix '" + prefix + "': its "
          + object + " bytes leave no room for its divergence marker (" + DIVERGENCE_OVERHEAD
          + " bytes more under _idem/evidence/), and S3 keys stop at " + MAX_OBJECT_KEY_BYTES
          + " bytes; use a shorter prefix or key");
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

  /** The logical key that keeps the bytes of an attempt with {@code sha256} at {@code key}. */
  static String evidenceKey(String key, String sha256) {
    return EVIDENCE + key + "!" + sha256;
  }

  /**
   * The logical key of the divergence marker of publish call {@code attempt} ({@value #ATTEMPT_ID_LENGTH}
   * lowercase hex characters) that offered {@code sha256} at {@code key}: one per attempt, so the scan
   * counts each.
   */
  static String divergenceMarkerKey(String key, String sha256, String attempt) {
    if (attempt.length() != ATTEMPT_ID_LENGTH || !isLowerHex(attempt)) {
      throw new IllegalArgumentException("an attempt id is " + ATTEMPT_ID_LENGTH + " lowercase hex characters, was "
          + attempt);
    }
    return evidenceKey(key, sha256) + "." + attempt;
  }

  /**
   * An evidence object: its logical key, the attempt's SHA-256, and whether it is a divergence marker
   * ({@link #divergenceMarkerKey}) rather than the attempt's bytes ({@link #evidenceKey}).
   */
  record Evidence(String key, String sha256, boolean marker) {}

  /** Parses a bucket key under {@link #evidencePrefix()}; {@code null} for anything else. */
  Evidence parseEvidence(String objectKey) {
    if (!objectKey.startsWith(evidencePrefix())) {
      return null;
    }
    String rest = objectKey.substring(evidencePrefix().length());
    int bang = rest.lastIndexOf('!');
    if (bang <= 0) {
      return null;
    }
    String tail = rest.substring(bang + 1);
    int dot = tail.indexOf('.');
    String sha = dot < 0 ? tail : tail.substring(0, dot);
    if (!Sha256.isHex(sha)) {
      return null;
    }
    if (dot >= 0) {
      String attempt = tail.substring(dot + 1);
      if (attempt.length() != ATTEMPT_ID_LENGTH || !isLowerHex(attempt)) {
        return null;
      }
    }
    return new Evidence(rest.substring(0, bang), sha, dot >= 0);
  }

  private static boolean isLowerHex(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'f')) {
        return false;
      }
    }
    return true;
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

  /** Where the claims on the keys that start with {@code keyPrefix} are listed. */
  String claimsPrefix(String keyPrefix) {
    return prefix + CLAIMS + keyPrefix;
  }

  /**
   * The bucket key of claim entry {@code id} ({@link #isClaimId}) on {@code key}.
   *
   * @throws IllegalArgumentException for an id this layout does not give, or when the entry's key under
   *     this prefix would be longer than an S3 key may be
   */
  String claimEntry(String key, String id) {
    requireClaimableKey(key);
    if (!isClaimId(id)) {
      throw new IllegalArgumentException("not a claim entry of an S3 store: " + id);
    }
    return prefix + CLAIMS + key + "/" + id;
  }

  /**
   * Checks a key a writer claims: safe, and short enough under this prefix that its claim entries (all
   * of one length) fit in an S3 key. Every key {@link #requirePublishableKey} accepts is claimable.
   *
   * @throws IllegalArgumentException naming the length otherwise
   */
  String requireClaimableKey(String key) {
    Names.requireSafeKey(key);
    int bytes = (prefix + CLAIMS + key + "/").getBytes(StandardCharsets.UTF_8).length + CLAIM_ID_LENGTH;
    if (bytes > MAX_OBJECT_KEY_BYTES) {
      throw new IllegalArgumentException("a claim on " + key + " would be kept at a key of " + bytes
          + " bytes under prefix '" + prefix + "', and S3 keys stop at " + MAX_OBJECT_KEY_BYTES);
    }
    return key;
  }

  /** Whether {@code id} is the name of a claim entry: {@code claim.} and 16 lowercase hex digits. */
  static boolean isClaimId(String id) {
    return CLAIM_ID.matcher(id).matches();
  }

  /** A claim entry's key and id ({@link #claimEntry}). */
  record ClaimEntry(String key, String id) {}

  /** Parses a bucket key under the claims area; {@code null} for anything else (a foreign object). */
  ClaimEntry parseClaimEntry(String objectKey) {
    String area = prefix + CLAIMS;
    int slash = objectKey.lastIndexOf('/');
    if (!objectKey.startsWith(area) || slash <= area.length()) {
      return null;
    }
    String key = objectKey.substring(area.length(), slash);
    String id = objectKey.substring(slash + 1);
    if (!isClaimId(id)) {
      return null;
    }
    try {
      return new ClaimEntry(Names.requireSafeKey(key), id);
    } catch (IllegalArgumentException notAKey) {
      return null;
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
