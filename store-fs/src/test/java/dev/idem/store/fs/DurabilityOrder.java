package dev.idem.store.fs;

import dev.idem.core.store.Pointer;
import dev.idem.store.fs.FaultyOps.Call;
import dev.idem.store.fs.FaultyOps.Op;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The order the filesystem calls of one store instance must follow for what it reports to survive a
 * power loss, checked on the calls a {@link FaultyOps#recording()} saw, in this module, where the code
 * is. A kill cannot lose what the page cache holds, so a missing or late {@code fsync} never shows in
 * the store's state after a SIGKILL ({@link FsObjectStoreCrashTest}); it shows here, as a call that is
 * missing or out of order. The fuzz module's {@code DurabilityLog} checks the same rules across
 * processes; these are the rules for one writer, so that every durability call is observed by the
 * store's own tests.
 *
 * <ul>
 *   <li><b>C1 content before name</b>: a file is written, then {@code force}d, before it is linked to an
 *       object's or evidence name or renamed over a pointer;
 *   <li><b>G1 durable publish</b>: after a link (made, or failed on an object already there), the
 *       link's directory is {@code fsync}ed before the attempt's record is created, and in any case
 *       before the call returns;
 *   <li><b>G1 pointer</b>: before a pointer is renamed into place, the object it names is durable: its
 *       directory was {@code fsync}ed after this instance linked it (and did not delete it since), or,
 *       when this instance did not, the object is forced and its directory {@code fsync}ed after the
 *       lock was taken, or a CREATED record of it was read after the lock was taken (one is created
 *       only after its object's directory fsync, the S3 rule below);
 *   <li><b>G2</b>: after a pointer rename, the pointer's directory is {@code fsync}ed before the call
 *       returns; the same for a pipeline's retirement mark ({@link RetirementFiles}), which is renamed
 *       into place beside the pointer (and C1 holds for it: written and forced before the rename);
 *   <li><b>S3</b>: a CREATED record is created only after its object's link was made durable, an
 *       IDENTICAL one only after the object it met had its directory fsynced after this attempt met
 *       it (a failed link or a stat), or after the attempt read a CREATED record of it (created only
 *       once the object was durable); a DIVERGENT record is written, {@code force}d and its directory
 *       {@code fsync}ed before the call returns (CREATED and IDENTICAL records are not forced: their
 *       objects are durable);
 *   <li><b>P8 the fact before the bytes</b>: divergent bytes are linked as evidence only after a
 *       DIVERGENT record of that attempt (same SHA-256) was written, {@code force}d and its directory
 *       {@code fsync}ed, so a publisher killed while keeping them has recorded the divergence;
 *   <li><b>directories</b>: a created directory's parent is {@code fsync}ed before anything is made in
 *       the new directory;
 *   <li><b>deletes</b>: deleting an object, a record or evidence (anything but a {@code .tmp-} file) is
 *       followed by an {@code fsync} of its directory before the call returns.
 * </ul>
 */
final class DurabilityOrder {
  private final Path root;
  /** The key each pointer rename put in place, by the rename's index: read when the rename is first seen. */
  private final Map<Integer, String> pointed = new HashMap<>();

  /** A checker for one store instance on {@code root}. */
  DurabilityOrder(Path root) {
    this.root = root;
  }

  /**
   * The broken rules, one line each, in {@code calls}: every call of the instance so far, in order;
   * {@code ends} holds, ascending, the number of calls made when each operation returned, so what must
   * follow a call must follow it within its operation. Call it after each operation that may rename a
   * pointer (the pointer's document is read then).
   */
  List<String> violations(List<Call> calls, List<Integer> ends) throws IOException {
    List<String> v = new ArrayList<>();
    Path records = root.resolve("_idem/records");
    Path evidence = root.resolve("_idem/evidence");
    for (int i = 0; i < calls.size(); i++) {
      Call c = calls.get(i);
      Path p = c.path();
      switch (c.op()) {
        case CREATE_LINK -> {
          if (!writtenThenForced(calls, c.from(), i)) {
            v.add("C1: " + rel(root, p) + " linked from " + rel(root, c.from()) + " before it was written and forced");
          }
          int end = endOf(ends, i, calls.size());
          int recorded = p.startsWith(evidence) ? end : recordOf(calls, p, i + 1, end);
          if (find(calls, i + 1, recorded, Op.FSYNC_DIRECTORY, p.getParent()) < 0) {
            v.add("G1: " + rel(root, p) + " linked (or found there) but its directory not fsynced before its"
                + " record or the end of the call");
          }
          if (p.startsWith(evidence)) {
            evidenceAfterItsRecord(calls, i, v);
          }
          requireParentSynced(calls, i, v);
        }
        case ATOMIC_MOVE -> {
          boolean mark = p.getFileName().toString().equals(RetirementFiles.FILE);
          String what = mark ? "retirement mark " : "pointer ";
          if (!writtenThenForced(calls, c.from(), i)) {
            v.add("C1: " + what + rel(root, p) + " renamed from " + rel(root, c.from()) + " before it was written and forced");
          }
          if (find(calls, i + 1, endOf(ends, i, calls.size()), Op.FSYNC_DIRECTORY, p.getParent()) < 0) {
            v.add("G2: " + what + rel(root, p) + " renamed but its directory not fsynced before the call returned");
          }
          requireParentSynced(calls, i, v);
          if (!mark) {
            pointerNamesDurableObject(calls, i, v);
          }
        }
        case CREATE_NEW -> {
          if (p.startsWith(records)) {
            checkRecord(calls, i, endOf(ends, i, calls.size()), v);
          }
          requireParentSynced(calls, i, v);
        }
        case CREATE_DIRECTORY -> requireParentSynced(calls, i, v);
        case DELETE -> {
          if (!p.getFileName().toString().startsWith(TempFile.PREFIX)
              && find(calls, i + 1, endOf(ends, i, calls.size()), Op.FSYNC_DIRECTORY, p.getParent()) < 0) {
            v.add("delete: " + rel(root, p) + " deleted but its directory not fsynced before the call returned");
          }
        }
        default -> { }
      }
    }
    return v;
  }

  private void checkRecord(List<Call> calls, int i, int end, List<String> v) {
    Path record = calls.get(i).path();
    String name = record.getFileName().toString();
    Path object = root.resolve(root.resolve("_idem/records").relativize(record.getParent()))
        .resolve(name.substring(0, name.lastIndexOf(Records.SEPARATOR)));
    if (name.contains("!CREATED.")) {
      int linked = last(calls, i, Op.CREATE_LINK, object::equals);
      if (linked < 0 || find(calls, linked + 1, i, Op.FSYNC_DIRECTORY, object.getParent()) < 0) {
        v.add("S3: CREATED record " + rel(root, record) + " created before its object's link was made durable");
      }
      return;
    }
    if (name.contains("!IDENTICAL.")) {
      // The fsync must follow this attempt's look at the object (its failed link, or the stat that
      // found it): a sync of the directory from before another instance linked it proves nothing.
      // Or it read a CREATED record of the object after meeting it: one is created only after its
      // object's directory fsync returned (the CREATED rule above, for whichever instance wrote it).
      int met = last(calls, i, null, object::equals);
      String created = object.getFileName().toString() + Records.SEPARATOR + "CREATED.";
      boolean vouched = met >= 0 && last(calls, i, Op.OPEN_READ,
          q -> q.getParent().equals(record.getParent()) && q.getFileName().toString().startsWith(created)) > met;
      if (!vouched && (met < 0 || find(calls, met + 1, i, Op.FSYNC_DIRECTORY, object.getParent()) < 0)) {
        v.add("S3: IDENTICAL record " + rel(root, record) + " created before the object it met was made durable");
      }
      return;
    }
    int written = find(calls, i + 1, end, Op.WRITE, record);
    int forced = written < 0 ? -1 : find(calls, written + 1, end, Op.FORCE, record);
    if (forced < 0) {
      v.add("S3: record " + rel(root, record) + " not written and then forced before the call returned");
    } else if (find(calls, forced + 1, end, Op.FSYNC_DIRECTORY, record.getParent()) < 0) {
      v.add("S3: record " + rel(root, record) + " forced but its directory not fsynced before the call returned");
    }
  }

  /** P8 for the evidence link at {@code i}: a DIVERGENT record of its bytes was made durable before it. */
  private void evidenceAfterItsRecord(List<Call> calls, int i, List<String> v) {
    Path kept = calls.get(i).path();
    Path object = root.resolve(root.resolve("_idem/evidence").relativize(kept.getParent()));
    Path records = root.resolve("_idem/records").resolve(root.relativize(object.getParent()));
    String name = object.getFileName() + String.valueOf(Records.SEPARATOR) + "DIVERGENT." + kept.getFileName() + ".";
    int created = last(calls, i, Op.CREATE_NEW,
        q -> records.equals(q.getParent()) && q.getFileName().toString().startsWith(name));
    int forced = created < 0 ? -1 : find(calls, created + 1, i, Op.FORCE, calls.get(created).path());
    if (forced < 0 || find(calls, forced + 1, i, Op.FSYNC_DIRECTORY, records) < 0) {
      v.add("P8: evidence " + rel(root, kept) + " linked before a DIVERGENT record of it was written, forced and its"
          + " directory fsynced");
    }
  }

  /** G1 for the pointer renamed at {@code move}: the document now in place names the object. */
  private void pointerNamesDurableObject(List<Call> calls, int move, List<String> v) throws IOException {
    Path latest = calls.get(move).path();
    String key = pointed.get(move);
    if (key == null) {
      key = Pointer.parse(Files.readAllBytes(latest), latest.toString()).key();
      pointed.put(move, key);
    }
    Path object = root.resolve(key);
    int linked = last(calls, move, Op.CREATE_LINK, object::equals);
    int deleted = last(calls, move, Op.DELETE, object::equals);
    if (linked >= 0 && deleted < linked) {
      if (find(calls, linked + 1, move, Op.FSYNC_DIRECTORY, object.getParent()) < 0) {
        v.add("G1: pointer " + rel(root, latest) + " moved to " + key
            + ", linked here, before that object's directory was fsynced");
      }
      return;
    }
    int locked = last(calls, move, Op.TRY_LOCK, q -> true);
    Path records = root.resolve("_idem/records").resolve(root.relativize(object.getParent()));
    String created = object.getFileName().toString() + Records.SEPARATOR + "CREATED.";
    if (last(calls, move, Op.OPEN_READ, q -> q.getParent().equals(records)
        && q.getFileName().toString().startsWith(created)) > locked) {
      return;
    }
    int forced = find(calls, locked + 1, move, Op.FORCE, object);
    if (forced < 0 || find(calls, forced + 1, move, Op.FSYNC_DIRECTORY, object.getParent()) < 0) {
      v.add("G1: pointer " + rel(root, latest) + " moved to " + key
          + ", not linked by this instance, before that object was forced and its directory fsynced under the lock"
          + " or a CREATED record of it was read there");
    }
  }

  /**
   * The parent of the directory call {@code i} creates something in, if this instance created that
   * directory, was fsynced between the two.
   */
  private void requireParentSynced(List<Call> calls, int i, List<String> v) {
    Path dir = calls.get(i).path().getParent();
    int made = last(calls, i, Op.CREATE_DIRECTORY, dir::equals);
    if (made >= 0 && find(calls, made + 1, i, Op.FSYNC_DIRECTORY, dir.getParent()) < 0) {
      v.add("dir: " + rel(root, calls.get(i).path()) + " created in the new directory " + rel(root, dir)
          + " before that directory's parent was fsynced");
    }
  }

  /** The number of calls made when the operation that made call {@code i} returned. */
  private static int endOf(List<Integer> ends, int i, int size) {
    for (int e : ends) {
      if (e > i) {
        return e;
      }
    }
    return size;
  }

  /** The index of the first record of {@code object} created in [{@code from}, {@code to}), else {@code to}. */
  private int recordOf(List<Call> calls, Path object, int from, int to) {
    Path dir = root.resolve("_idem/records").resolve(root.relativize(object.getParent()));
    String prefix = object.getFileName() + String.valueOf(Records.SEPARATOR);
    for (int j = from; j < to; j++) {
      Call c = calls.get(j);
      if (c.op() == Op.CREATE_NEW && dir.equals(c.path().getParent()) && c.path().getFileName().toString().startsWith(prefix)) {
        return j;
      }
    }
    return to;
  }

  /** {@code file} was written (if at all, then last) before a force, and forced, before call {@code before}. */
  private static boolean writtenThenForced(List<Call> calls, Path file, int before) {
    int forced = last(calls, before, Op.FORCE, file::equals);
    return forced >= 0 && last(calls, before, Op.WRITE, file::equals) < forced;
  }

  private static int find(List<Call> calls, int from, int to, Op op, Path path) {
    for (int j = Math.max(from, 0); j < to; j++) {
      if (calls.get(j).op() == op && path.equals(calls.get(j).path())) {
        return j;
      }
    }
    return -1;
  }

  /** The index of the last call before {@code before} with {@code op} (any op when null) on a path {@code where} accepts. */
  private static int last(List<Call> calls, int before, Op op, Predicate<Path> where) {
    for (int j = before - 1; j >= 0; j--) {
      Call c = calls.get(j);
      if ((op == null || c.op() == op) && c.path() != null && where.test(c.path())) {
        return j;
      }
    }
    return -1;
  }

  private static String rel(Path root, Path p) {
    return p == null ? "?" : root.relativize(p).toString();
  }
}
