package dev.idem.fuzz;

/**
 * A point in one replica's stream of store operations: the {@code nth} call of {@code op}, just before
 * it runs or just after it returned. Operations are what the backend's seam sees: {@code FsOps} method
 * names on the filesystem, request classes ({@code PUT object}, {@code GET pointer}, ...) at the HTTP
 * proxy in front of S3Proxy, SPI method names for the in-memory store.
 */
public record Step(String op, boolean after, int nth) {
  public Step {
    if (nth < 1) {
      throw new IllegalArgumentException("nth counts from 1, was " + nth);
    }
  }

  /** Parses {@link #encode()}. */
  static Step decode(String s) {
    String[] parts = s.split("\\|", 3);
    return new Step(parts[2], parts[0].equals("after"), Integer.parseInt(parts[1]));
  }

  /** A compact form for the command line of a replica process. */
  String encode() {
    return (after ? "after" : "before") + "|" + nth + "|" + op;
  }

  @Override
  public String toString() {
    return (after ? "after" : "before") + " '" + op + "'" + (nth > 1 ? " #" + nth : "");
  }
}
