package dev.idem.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Everything that defines one unit of work, and nothing that differs between replicas: the pipeline,
 * the closed window, the output schema version, and declared extra inputs (an input snapshot's
 * version id, a model hash, ...). Immutable; equal specs give equal keys everywhere (K1).
 *
 * <h2>Canonical encoding (hashed by {@link #outputKey()})</h2>
 *
 * <pre>
 *   utf8(pipeline) ‖ u64be(window_start) ‖ u64be(window_len) ‖ u32be(schema_version)
 *   [ ‖ "\0idem-inputs-v1\0" ‖ u32be(n) ‖ for each input, names in ascending UTF-8 byte order:
 *         u32be(len(name)) ‖ utf8(name) ‖ u64be(len(value)) ‖ value ]
 * </pre>
 *
 * The bracketed part is present only when there is at least one input, so a spec with only the four
 * base fields hashes exactly as the reference sketch does (K2).
 *
 * <h2>Why the key is injective (K3)</h2>
 *
 * The pipeline is the key's first path segment, so specs with different pipelines have different keys
 * whatever their digests. For one pipeline, the base part has a fixed length ({@code |pipeline| + 20}
 * bytes) and holds the three numbers at fixed offsets, so it determines them. What follows is either
 * nothing (no inputs) or a domain tag, a count, and length-prefixed name/value pairs in a canonical
 * order: a prefix-free encoding from which the input map is read back unambiguously. So distinct specs
 * give distinct byte strings, and distinct digests unless SHA-256 collides. Input names are sorted,
 * hence the order in which a caller adds inputs does not matter, and the map cannot hold one name twice.
 */
public final class RunSpec {
  /** Upper bound on one input value, so a spec stays a small description, not a payload. */
  public static final int MAX_INPUT_BYTES = 64 * 1024;
  /** Upper bound on the number of declared inputs. */
  public static final int MAX_INPUTS = 256;
  /** Schema versions are encoded as u32; Java's int gives 0..2^31-1 of that range. */
  public static final int MAX_SCHEMA_VERSION = Integer.MAX_VALUE;

  private static final byte[] INPUTS_TAG = "\0idem-inputs-v1\0".getBytes(StandardCharsets.US_ASCII);

  private final String pipeline;
  private final Window window;
  private final int schemaVersion;
  private final SortedMap<String, byte[]> inputs;
  /** Length of {@link #canonicalBytes()}; at most 16 MiB and a bit by the limits above. */
  private final int encodedSize;

  private RunSpec(String pipeline, Window window, int schemaVersion, SortedMap<String, byte[]> inputs) {
    this.pipeline = Names.requirePipeline(pipeline);
    this.window = Objects.requireNonNull(window, "window");
    if (schemaVersion < 0) {
      throw new IllegalArgumentException("schema version must be >= 0, was " + schemaVersion);
    }
    this.schemaVersion = schemaVersion;
    this.inputs = inputs;
    this.encodedSize = encodedSize(this.pipeline, inputs);
  }

  /** A spec with the four base fields and no extra inputs. */
  public static RunSpec of(String pipeline, Window window, int schemaVersion) {
    return new RunSpec(pipeline, window, schemaVersion, new TreeMap<>());
  }

  /** A copy with one more declared input; its value is the UTF-8 of {@code value}. */
  public RunSpec withInput(String name, String value) {
    return withInput(name, Objects.requireNonNull(value, "value").getBytes(StandardCharsets.UTF_8));
  }

  /**
   * A copy with one more declared input.
   *
   * @throws IllegalArgumentException for an invalid or repeated name, a value over {@value
   *     #MAX_INPUT_BYTES} bytes, or more than {@value #MAX_INPUTS} inputs
   */
  public RunSpec withInput(String name, byte[] value) {
    Names.requireInputName(name);
    Objects.requireNonNull(value, "value");
    if (inputs.containsKey(name)) {
      throw new IllegalArgumentException("input " + Names.quote(name) + " is declared twice");
    }
    if (value.length > MAX_INPUT_BYTES) {
      throw new IllegalArgumentException(
          "input " + Names.quote(name) + " is " + value.length + " bytes, more than " + MAX_INPUT_BYTES);
    }
    if (inputs.size() >= MAX_INPUTS) {
      throw new IllegalArgumentException("more than " + MAX_INPUTS + " inputs declared");
    }
    SortedMap<String, byte[]> copy = new TreeMap<>(inputs);
    copy.put(name, value.clone());
    return new RunSpec(pipeline, window, schemaVersion, copy);
  }

  public String pipeline() {
    return pipeline;
  }

  public Window window() {
    return window;
  }

  public int schemaVersion() {
    return schemaVersion;
  }

  /** Declared inputs by name, in canonical order; values are copies. */
  public Map<String, byte[]> inputs() {
    SortedMap<String, byte[]> copy = new TreeMap<>();
    inputs.forEach((k, v) -> copy.put(k, v.clone()));
    return Collections.unmodifiableSortedMap(copy);
  }

  /** The canonical encoding described in the class comment; what the key hashes. */
  public byte[] canonicalBytes() {
    // Written by hand into one array sized up front: this runs on every key derivation, and a
    // ByteBuffer plus a getBytes copy per name cost as much as the digest itself with a few inputs.
    // Pipeline and input names are ASCII by validation, so each char is its own UTF-8 byte, and
    // String order equals UTF-8 byte order (the TreeMap's order is the canonical one).
    byte[] b = new byte[encodedSize];
    int at = putAscii(b, 0, pipeline);
    at = putLong(b, at, window.startEpochSecond());
    at = putLong(b, at, window.lengthSeconds());
    at = putInt(b, at, schemaVersion);
    if (!inputs.isEmpty()) {
      System.arraycopy(INPUTS_TAG, 0, b, at, INPUTS_TAG.length);
      at = putInt(b, at + INPUTS_TAG.length, inputs.size());
      for (Map.Entry<String, byte[]> e : inputs.entrySet()) {
        String name = e.getKey();
        byte[] value = e.getValue();
        at = putAscii(b, putInt(b, at, name.length()), name);
        at = putLong(b, at, value.length);
        System.arraycopy(value, 0, b, at, value.length);
        at += value.length;
      }
    }
    return b;
  }

  private static int encodedSize(String pipeline, SortedMap<String, byte[]> inputs) {
    int size = pipeline.length() + 20;
    if (!inputs.isEmpty()) {
      size += INPUTS_TAG.length + 4;
      for (Map.Entry<String, byte[]> e : inputs.entrySet()) {
        size += 4 + e.getKey().length() + 8 + e.getValue().length;
      }
    }
    return size;
  }

  private static int putAscii(byte[] b, int at, String s) {
    for (int i = 0; i < s.length(); i++) {
      b[at + i] = (byte) s.charAt(i);
    }
    return at + s.length();
  }

  private static int putInt(byte[] b, int at, int v) {
    b[at] = (byte) (v >>> 24);
    b[at + 1] = (byte) (v >>> 16);
    b[at + 2] = (byte) (v >>> 8);
    b[at + 3] = (byte) v;
    return at + 4;
  }

  private static int putLong(byte[] b, int at, long v) {
    return putInt(b, putInt(b, at, (int) (v >>> 32)), (int) v);
  }

  /** The output key (K1–K3); a pure function of this spec. */
  public OutputKey outputKey() {
    byte[] bytes = canonicalBytes();
    // A command computes one key per process: that one is hashed in plain Java, without starting the
    // security providers (Sha256's plain budget); a long-lived JVM soon uses the per-thread digest.
    byte[] digest = Sha256.takePlain(bytes.length) ? new PlainSha256().digest(bytes) : DIGEST.get().digest(bytes);
    return OutputKey.ofValidated(pipeline, window.startEpochSecond(), Sha256.hex(digest));
  }

  /**
   * One digest per thread: MessageDigest.getInstance costs more than hashing a spec. A subclass, not
   * {@code withInitial(Sha256::newDigest)}: the method reference would spin a lambda class when
   * RunSpec is first used, at every start.
   */
  private static final ThreadLocal<MessageDigest> DIGEST = new ThreadLocal<>() {
    @Override
    protected MessageDigest initialValue() {
      return Sha256.newDigest();
    }
  };

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof RunSpec)) {
      return false;
    }
    RunSpec other = (RunSpec) o;
    return Arrays.equals(canonicalBytes(), other.canonicalBytes());
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(canonicalBytes());
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("RunSpec{pipeline=").append(pipeline)
        .append(", window=").append(window).append(", schema=").append(schemaVersion);
    if (!inputs.isEmpty()) {
      b.append(", inputs=").append(inputs.keySet());
    }
    return b.append('}').toString();
  }
}
