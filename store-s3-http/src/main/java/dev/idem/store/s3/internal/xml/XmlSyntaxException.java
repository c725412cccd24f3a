package dev.idem.store.s3.internal.xml;

import java.io.IOException;

/**
 * Input that {@link XmlPullParser} does not accept: not well-formed XML, or XML outside the subset it
 * reads (a DTD, an unknown entity, a processing instruction, another encoding). Distinct from the plain
 * {@link IOException}s of the underlying stream, so a caller can retry a failed read but not a bad reply.
 *
 * <p>The message names the line and byte offset and never quotes element text (it may hold secrets);
 * it names at most an element or entity name.
 */
public final class XmlSyntaxException extends IOException {
  private static final long serialVersionUID = 1L;

  private final long line;
  private final long byteOffset;

  XmlSyntaxException(String reason, long line, long byteOffset) {
    super("not well-formed XML at line " + line + ", byte " + byteOffset + ": " + reason);
    this.line = line;
    this.byteOffset = byteOffset;
  }

  /** The 1-based line of the offending input. */
  public long line() {
    return line;
  }

  /** The 0-based offset, in bytes from the start of the input, of the offending input. */
  public long byteOffset() {
    return byteOffset;
  }
}
