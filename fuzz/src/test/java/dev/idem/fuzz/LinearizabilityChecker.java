package dev.idem.fuzz;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Decides whether a concurrent history of pointer reads and compare-and-swaps is linearizable against
 * the sequential model of a register with compare-and-swap (Wing &amp; Gong's search, with Lowe's
 * memoization of (linearized set, state) pairs). Histories are small (at most 62 operations), so an
 * exhaustive search is cheap.
 *
 * <p>Values are opaque ids; {@code null} is "no pointer". Model: {@code read} returns the current
 * value; {@code cas(e, n)} returns SWAPPED and sets the value to {@code n} iff the value is {@code e},
 * else CONFLICT; BUSY never changes anything.
 */
final class LinearizabilityChecker {

  enum Kind { READ, CAS }

  enum Outcome { VALUE, SWAPPED, CONFLICT, BUSY }

  /**
   * One completed operation.
   *
   * @param value for READ the value read; for CAS the value offered
   * @param expected for CAS, the value whose token the caller expected; unused for READ
   */
  record Op(int thread, Kind kind, String expected, String value, Outcome outcome, long invoke, long response) {
    @Override
    public String toString() {
      String what = kind == Kind.READ ? "read() = " + value : "cas(" + expected + " -> " + value + ") = " + outcome;
      return "t" + thread + " " + what + " [" + invoke + ", " + response + "]";
    }
  }

  private final List<Op> ops;
  private final Set<String> seen = new HashSet<>();

  private LinearizabilityChecker(List<Op> ops) {
    if (ops.size() > 62) {
      throw new IllegalArgumentException("history too long for the exhaustive search: " + ops.size());
    }
    this.ops = List.copyOf(ops);
  }

  /** Returns a witness order if {@code history} is linearizable from {@code initial}, else {@code null}. */
  static List<Op> linearize(List<Op> history, String initial) {
    LinearizabilityChecker c = new LinearizabilityChecker(history);
    List<Op> order = new ArrayList<>();
    return c.search(0L, initial, order) ? order : null;
  }

  private boolean search(long done, String state, List<Op> order) {
    if (Long.bitCount(done) == ops.size()) {
      return true;
    }
    if (!seen.add(done + "|" + state)) {
      return false;
    }
    long minResponse = Long.MAX_VALUE;
    for (int i = 0; i < ops.size(); i++) {
      if ((done & (1L << i)) == 0) {
        minResponse = Math.min(minResponse, ops.get(i).response());
      }
    }
    for (int i = 0; i < ops.size(); i++) {
      if ((done & (1L << i)) != 0) {
        continue;
      }
      Op op = ops.get(i);
      // Only an operation that began before every pending one ended can come next.
      if (op.invoke() > minResponse) {
        continue;
      }
      String next = apply(state, op);
      if (INVALID.equals(next)) {
        continue;
      }
      order.add(op);
      if (search(done | (1L << i), next, order)) {
        return true;
      }
      order.remove(order.size() - 1);
    }
    return false;
  }

  /** Not a value id: ids are writer ids, which never contain a NUL. */
  private static final String INVALID = "\0invalid";

  /** The model's state after {@code op}, or {@link #INVALID} if the model could not have answered so. */
  private static String apply(String state, Op op) {
    if (op.kind() == Kind.READ) {
      return Objects.equals(state, op.value()) ? state : INVALID;
    }
    return switch (op.outcome()) {
      case SWAPPED -> Objects.equals(state, op.expected()) ? op.value() : INVALID;
      case CONFLICT -> Objects.equals(state, op.expected()) ? INVALID : state;
      case BUSY -> state;
      case VALUE -> INVALID;
    };
  }
}
