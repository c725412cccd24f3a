package dev.idem.store.fs;

import dev.idem.core.Names;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * Where each thing lives under a store's root (the layout {@link FsObjectStore}'s class comment draws),
 * and the checks that keep every key's path strictly under its tree and off the store's own names: the
 * one owner of the store's paths. Pure path arithmetic: touches no file; {@link ContainedFs} reaches
 * the paths computed here.
 */
final class Layout {
  private static final String INTERNAL_DIR = "_idem";
  static final String EVIDENCE_PREFIX = INTERNAL_DIR + "/evidence/";

  private final Path root;
  private final Path recordRoot;
  private final Path evidenceRoot;
  private final Path pointerRoot;

  Layout(Path root) {
    this.root = root;
    this.recordRoot = root.resolve(INTERNAL_DIR).resolve("records");
    this.evidenceRoot = root.resolve(INTERNAL_DIR).resolve("evidence");
    this.pointerRoot = root.resolve(INTERNAL_DIR).resolve("pointers");
  }

  /** The absolute root directory. */
  Path root() {
    return root;
  }

  /** {@code _idem}: the store's own directory. */
  Path internalDir() {
    return root.resolve(INTERNAL_DIR);
  }

  /** {@code _idem/records}: one create-only file per publish attempt, mirroring the object tree. */
  Path recordRoot() {
    return recordRoot;
  }

  /** {@code _idem/evidence}: a directory per key holding the bytes of its DIVERGENT attempts. */
  Path evidenceRoot() {
    return evidenceRoot;
  }

  /** The directory holding the records of {@code key} (and of the other keys in its directory). */
  Path recordDir(String key) {
    int slash = key.lastIndexOf('/');
    return slash < 0 ? recordRoot : recordRoot.resolve(key.substring(0, slash));
  }

  /** The directory holding the kept divergent bytes of {@code key}, named by their SHA-256. */
  Path evidenceDir(String key) {
    return evidenceRoot.resolve(key);
  }

  /**
   * The path of {@code key}: checked by {@link Names#requireSafeKey}, not one of the store's own names,
   * and strictly under the root.
   */
  Path resolveKey(String key) {
    Names.requireSafeKey(key);
    String[] segments = key.split("/", -1);
    for (int i = 0; i < segments.length; i++) {
      if (!KeyWalker.isKeySegment(segments[i], i == 0)) {
        throw new IllegalArgumentException("key " + quote(key) + " uses a name reserved by the filesystem store"
            + " (a first segment starting with _idem, or a segment starting with .tmp-)");
      }
    }
    return resolveUnder(root, key, key);
  }

  /** The path of an evidence key ({@code _idem/evidence/<key>/<sha256>}), strictly under the evidence tree. */
  Path resolveEvidenceKey(String evidenceKey) {
    return resolveUnder(evidenceRoot, evidenceKey.substring(EVIDENCE_PREFIX.length()), evidenceKey);
  }

  /** Where the divergent bytes with hash {@code sha} offered for {@code key} are kept. */
  Path evidenceFile(String key, String sha) {
    return evidenceRoot.resolve(key).resolve(sha);
  }

  /** {@code _idem/pointers}: a directory per pipeline holding its pointer. */
  Path pointerRoot() {
    return pointerRoot;
  }

  /** The directory of the pipeline's pointer; throws {@link IllegalArgumentException} for a bad name. */
  Path pointerDir(String pipeline) {
    return pointerRoot.resolve(Names.requirePipeline(pipeline));
  }

  private static Path resolveUnder(Path base, String relative, String key) {
    Names.requireSafeKey(relative);
    Path p;
    try {
      p = base.resolve(relative).normalize();
    } catch (InvalidPathException e) {
      throw new IllegalArgumentException("key " + quote(key) + " is not a valid path here: " + e.getReason());
    }
    if (!p.startsWith(base) || p.equals(base)) {
      throw new IllegalArgumentException("key " + quote(key) + " resolves outside " + base);
    }
    return p;
  }

  private static String quote(String key) {
    return "\"" + key + "\"";
  }
}
