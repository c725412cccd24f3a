package dev.idem.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/**
 * The container image tar that src/image/build-image.sh writes, read the way a container runtime
 * reads it, since no daemon is available to load it: the outer archive's files, the OCI index,
 * manifest and config as JSON, and each layer's entries. It only parses; the tests decide what is
 * right. ustar only, as the build writes: any other header (GNU long names, pax) is reported as an
 * {@link IllegalStateException} naming the entry, never skipped, and so is a bad header checksum or a
 * truncated archive.
 */
final class OciImage {
  /** Bytes of a layer file kept for inspection: enough for /etc files and an ELF header. */
  static final int KEPT = 64 * 1024;

  /** One tar entry. {@code type} is the ustar type flag: '0' file, '5' directory, '2' symlink. */
  record Entry(String path, char type, int mode, int uid, int gid, long size, String link, byte[] head) {
    boolean isFile() {
      return type == '0';
    }

    boolean isDirectory() {
      return type == '5';
    }

    boolean isExecutable() {
      return isFile() && (mode & 0111) != 0;
    }

    boolean isElf() {
      return head.length >= 4 && head[0] == 0x7f && head[1] == 'E' && head[2] == 'L' && head[3] == 'F';
    }

    String text() {
      return new String(head, StandardCharsets.UTF_8);
    }
  }

  /** A layer: its entries and the digest of its uncompressed bytes (the config's diff ID). */
  record Layer(List<Entry> entries, String diffId) {}

  final Map<String, byte[]> files;

  private OciImage(Map<String, byte[]> files) {
    this.files = files;
  }

  static OciImage read(Path tar) throws IOException {
    Map<String, byte[]> files = new LinkedHashMap<>();
    try (InputStream in = Files.newInputStream(tar)) {
      for (Entry e : entries(in, Integer.MAX_VALUE)) {
        if (e.isFile()) {
          files.put(e.path(), e.head());
        }
      }
    }
    return new OciImage(files);
  }

  /** A file of the outer archive, e.g. {@code index.json}; an IllegalStateException if absent. */
  byte[] file(String path) {
    byte[] b = files.get(path);
    if (b == null) {
      throw new IllegalStateException("the image archive has no " + path + "; it has " + files.keySet());
    }
    return b;
  }

  Map<String, Object> json(String path) {
    return MiniJson.object(new String(file(path), StandardCharsets.UTF_8));
  }

  /** The blob a descriptor digest ({@code sha256:HEX}) names. */
  byte[] blob(String digest) {
    if (!digest.startsWith("sha256:")) {
      throw new IllegalStateException("not a sha256 digest: " + digest);
    }
    return file("blobs/sha256/" + digest.substring("sha256:".length()));
  }

  Map<String, Object> jsonBlob(String digest) {
    return MiniJson.object(new String(blob(digest), StandardCharsets.UTF_8));
  }

  @SuppressWarnings("unchecked")
  static <T> T at(Object json, Object... path) {
    Object v = json;
    for (Object step : path) {
      if (step instanceof Integer i) {
        v = ((List<Object>) v).get(i);
      } else {
        v = ((Map<String, Object>) v).get((String) step);
      }
      if (v == null) {
        throw new IllegalStateException("no " + List.of(path) + " in " + json);
      }
    }
    return (T) v;
  }

  /** The OCI manifest the index names (the image has one). */
  Map<String, Object> manifest() {
    return jsonBlob(at(json("index.json"), "manifests", 0, "digest"));
  }

  Map<String, Object> config() {
    return jsonBlob(at(manifest(), "config", "digest"));
  }

  /** The layers in the manifest's order, each decompressed and read. */
  List<Layer> layers() throws IOException {
    List<Layer> layers = new ArrayList<>();
    List<Map<String, Object>> descriptors = at(manifest(), "layers");
    for (Map<String, Object> d : descriptors) {
      layers.add(layer(blob((String) d.get("digest"))));
    }
    return layers;
  }

  static Layer layer(byte[] gzipped) throws IOException {
    MessageDigest sha = sha256();
    try (InputStream in = new DigestInputStream(new GZIPInputStream(new ByteArrayInputStream(gzipped)), sha)) {
      List<Entry> entries = entries(in, KEPT);
      // The diff ID covers the whole uncompressed stream, end-of-archive padding included.
      in.transferTo(OutputStream.nullOutputStream());
      return new Layer(entries, "sha256:" + HexFormat.of().formatHex(sha.digest()));
    }
  }

  static String sha256(byte[] bytes) {
    return "sha256:" + HexFormat.of().formatHex(sha256().digest(bytes));
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Entries up to the end-of-archive block, keeping the first {@code keep} bytes of each file. */
  static List<Entry> entries(InputStream in, int keep) throws IOException {
    List<Entry> out = new ArrayList<>();
    byte[] h = new byte[512];
    while (true) {
      if (!readBlock(in, h)) {
        throw new IllegalStateException("the tar ends without an end-of-archive block after " + out.size() + " entries");
      }
      if (allZero(h)) {
        return out;
      }
      String name = string(h, 0, 100);
      String prefix = string(h, 345, 155);
      String path = prefix.isEmpty() ? name : prefix + "/" + name;
      if (!string(h, 257, 6).equals("ustar")) {
        throw new IllegalStateException(path + ": not a ustar header");
      }
      if (octal(h, 148, 8) != checksum(h)) {
        throw new IllegalStateException(path + ": header checksum does not match");
      }
      char type = h[156] == 0 ? '0' : (char) h[156];
      if (type != '0' && type != '5' && type != '2') {
        throw new IllegalStateException(path + ": tar entry type '" + type + "' (the build writes files, directories and symlinks only)");
      }
      long size = octal(h, 124, 12);
      ByteArrayOutputStream kept = new ByteArrayOutputStream();
      long left = size + (512 - size % 512) % 512;
      long pos = 0;
      byte[] buf = new byte[8192];
      while (left > 0) {
        int n = in.read(buf, 0, (int) Math.min(buf.length, left));
        if (n < 0) {
          throw new IllegalStateException(path + ": the tar ends inside this entry");
        }
        if (pos < Math.min(size, keep)) {
          kept.write(buf, 0, (int) Math.min(n, Math.min(size, keep) - pos));
        }
        pos += n;
        left -= n;
      }
      out.add(new Entry(path, type, (int) octal(h, 100, 8), (int) octal(h, 108, 8), (int) octal(h, 116, 8),
          size, string(h, 157, 100), kept.toByteArray()));
    }
  }

  private static boolean readBlock(InputStream in, byte[] block) throws IOException {
    int got = in.readNBytes(block, 0, block.length);
    return got == block.length;
  }

  private static boolean allZero(byte[] b) {
    for (byte x : b) {
      if (x != 0) {
        return false;
      }
    }
    return true;
  }

  private static String string(byte[] h, int off, int len) {
    int end = off;
    while (end < off + len && h[end] != 0) {
      end++;
    }
    return new String(h, off, end - off, StandardCharsets.UTF_8);
  }

  private static long octal(byte[] h, int off, int len) {
    String s = string(h, off, len).trim();
    return s.isEmpty() ? 0 : Long.parseLong(s, 8);
  }

  private static long checksum(byte[] h) {
    long sum = 0;
    for (int i = 0; i < h.length; i++) {
      sum += (i >= 148 && i < 156) ? ' ' : (h[i] & 0xff);
    }
    return sum;
  }
}
