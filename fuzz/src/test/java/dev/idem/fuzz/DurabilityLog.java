package dev.idem.fuzz;

import dev.idem.core.store.Pointer;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The order of one scenario's durability-relevant filesystem calls, as the replica threads made them
 * through {@link HookedFsOps}, and the rules that order must follow. Killing a process cannot lose what
 * the page cache holds, so a missing {@code fsync} never shows in the store's state after a kill; it
 * shows here, as a call that is missing or comes too late:
 *
 * <ul>
 *   <li><b>content before name</b>: a temporary file is {@code force}d before it is linked to an
 *       object's name or renamed over a pointer (a crash must not leave a named but empty file);
 *   <li><b>G1</b>: an object's directory is {@code fsync}ed after the object was linked and before a
 *       pointer naming it is renamed into place, or, for an object linked outside this log, after the
 *       moving thread took the lock or that thread read a CREATED record of it since taking the lock
 *       (one is created only after its object's directory fsync, whoever linked it);
 *   <li><b>durable publish</b>: a thread that linked an object {@code fsync}s its directory before
 *       going on (it then reports CREATED, which must survive a power loss);
 *   <li><b>G2 across a power loss</b>: a thread that renamed a pointer into place {@code fsync}s its
 *       directory (else the pointer may revert to an older position after a crash);
 *   <li><b>S3 records in the order of objects</b>: a CREATED record is created only after its
 *       object's link was made durable by a directory {@code fsync}, an IDENTICAL one only after its
 *       thread fsynced the directory of the object it met or read a CREATED record of it; a DIVERGENT
 *       record is {@code force}d and its directory {@code fsync}ed by its thread before it goes on (the
 *       record the scan needs must survive a power loss; CREATED and IDENTICAL records describe a
 *       durable object);
 *   <li><b>P8 the fact before the bytes</b>: divergent bytes are linked as evidence only after their
 *       thread created a DIVERGENT record of them (same SHA-256), forced it and fsynced its directory.
 * </ul>
 *
 * Threads that died or hit an injected fault are excused from the "goes on to fsync" rules: what they
 * owed is then a retry's or a sweep's business, which the other checks cover.
 */
final class DurabilityLog {
  /** One completed call. */
  record Event(long seq, Thread thread, String op, Path path, Path other, Pointer pointer) {}

  private final Path root;
  private final List<Event> events = new ArrayList<>();
  private final Map<FileChannel, Path> channels = Collections.synchronizedMap(new IdentityHashMap<>());
  private long seq;

  DurabilityLog(Path root) {
    this.root = root;
  }

  void opened(FileChannel channel, Path path) {
    channels.put(channel, path);
  }

  synchronized void record(String op, Path path, Path other) {
    events.add(new Event(++seq, Thread.currentThread(), op, path, other, null));
  }

  synchronized void forced(FileChannel channel) {
    Path p = channels.get(channel);
    events.add(new Event(++seq, Thread.currentThread(), "force", p, null, null));
  }

  /** Before a pointer rename: reads the document being moved into place, to know what it names. */
  void pointerMoving(Path source, Path target) {
    Pointer p = null;
    try {
      p = Pointer.parse(Files.readAllBytes(source), source.toString());
    } catch (IOException | RuntimeException unreadable) {
      // Not a pointer document: nothing to order.
    }
    synchronized (this) {
      events.add(new Event(++seq, Thread.currentThread(), "pointer-moving", source, target, p));
    }
  }

  /** Checks the rules; {@code excused} are threads that died or hit a fault. */
  synchronized List<String> violations(Set<Thread> excused) {
    List<String> v = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      Event e = events.get(i);
      switch (e.op()) {
        case "createLink" -> {
          if (e.path().startsWith(root.resolve("_idem/evidence"))) {
            checkEvidence(e, i, v);
          }
          if (!e.path().startsWith(root.resolve("_idem"))) {
            if (!forcedBefore(e.other(), i)) {
              v.add("C1: " + rel(e.path()) + " was linked from a temporary file that was never forced");
            }
            if (!excused.contains(e.thread()) && !syncedAfter(e.path().getParent(), i, e.thread())) {
              v.add("G1: the thread that linked " + rel(e.path()) + " never fsynced its directory afterwards");
            }
          }
        }
        case "pointer-moving" -> {
          if (!forcedBefore(e.path(), i)) {
            v.add("C1: pointer " + rel(e.other()) + " was renamed from a temporary file that was never forced");
          }
          if (e.pointer() != null) {
            Path object = root.resolve(e.pointer().key());
            int linked = lastIndex(i, "createLink", object);
            int lockedAt = lastIndex(i, "tryLock", null, e.thread());
            int from = linked >= 0 ? linked : lockedAt;
            Path records = root.resolve("_idem/records").resolve(root.relativize(object.getParent()));
            boolean vouched = linked < 0 && lockedAt >= 0
                && readBetween(lockedAt, i, e.thread(), records, object.getFileName() + "!CREATED.");
            if (!vouched && !syncedBetween(object.getParent(), from, i)) {
              v.add("G1: pointer " + rel(e.other()) + " was moved to " + e.pointer().key()
                  + " before that object's directory was fsynced after its link");
            }
          }
        }
        case "createRecord" -> checkRecord(e, i, excused, v);
        case "atomicMove" -> {
          if (!excused.contains(e.thread()) && !syncedAfter(e.other().getParent(), i, e.thread())) {
            v.add("G2: the thread that renamed " + rel(e.other()) + " never fsynced its directory afterwards");
          }
        }
        default -> { }
      }
    }
    return v;
  }

  private void checkRecord(Event e, int i, Set<Thread> excused, List<String> v) {
    String name = e.path().getFileName().toString();
    Path object = root.resolve(root.resolve("_idem/records").relativize(e.path().getParent()))
        .resolve(name.substring(0, name.lastIndexOf('!')));
    if (name.contains("!CREATED.")) {
      int linked = lastIndex(i, "createLink", object);
      if (linked < 0 || !syncedBetween(object.getParent(), linked, i)) {
        v.add("S3: CREATED record " + rel(e.path()) + " was written before its object's link was made durable");
      }
      return;
    }
    if (name.contains("!IDENTICAL.")) {
      // The object may have been linked by a replica in another JVM, whose calls this log does not
      // hold: the rule is the recording thread's own, an fsync of the object's directory before it,
      // or a CREATED record of the object it read (one is created only after its object's directory
      // fsync returned, by whichever replica, which the CREATED rule checks where the log holds it).
      String created = object.getFileName() + "!CREATED.";
      if (lastIndex(i, "fsyncDirectory", object.getParent(), e.thread()) < 0
          && !readBefore(i, e.thread(), e.path().getParent(), created)) {
        v.add("S3: IDENTICAL record " + rel(e.path()) + " was written before its thread fsynced the directory"
            + " of the object it met or read a CREATED record of it");
      }
      return;
    }
    if (!excused.contains(e.thread())) {
      if (!forcedAfter(e.path(), i, e.thread())) {
        v.add("S3: the thread that wrote record " + rel(e.path()) + " never forced it");
      }
      if (!syncedAfter(e.path().getParent(), i, e.thread())) {
        v.add("S3: the thread that wrote record " + rel(e.path()) + " never fsynced its directory afterwards");
      }
    }
  }

  /** P8 for the evidence link {@code e} at {@code i}: its thread made a DIVERGENT record of the bytes durable first. */
  private void checkEvidence(Event e, int i, List<String> v) {
    Path object = root.resolve(root.resolve("_idem/evidence").relativize(e.path().getParent()));
    Path records = root.resolve("_idem/records").resolve(root.relativize(object.getParent()));
    String name = object.getFileName() + "!DIVERGENT." + e.path().getFileName() + ".";
    for (int j = i - 1; j >= 0; j--) {
      Event c = events.get(j);
      if (c.op().equals("createRecord") && c.thread() == e.thread() && c.path().getParent().equals(records)
          && c.path().getFileName().toString().startsWith(name)) {
        int forced = -1;
        for (int f = j + 1; f < i && forced < 0; f++) {
          Event x = events.get(f);
          forced = x.op().equals("force") && c.path().equals(x.path()) && x.thread() == e.thread() ? f : -1;
        }
        if (forced >= 0 && syncedBetween(records, forced, i)) {
          return;
        }
        break;
      }
    }
    v.add("P8: evidence " + rel(e.path()) + " was linked before its thread made a DIVERGENT record of it durable");
  }

  private boolean forcedAfter(Path file, int after, Thread thread) {
    for (int j = after + 1; j < events.size(); j++) {
      Event e = events.get(j);
      if (e.op().equals("force") && file.equals(e.path()) && e.thread() == thread) {
        return true;
      }
    }
    return false;
  }

  private String rel(Path p) {
    return p == null ? "?" : root.relativize(p).toString();
  }

  private boolean forcedBefore(Path file, int before) {
    for (int j = before - 1; j >= 0; j--) {
      Event e = events.get(j);
      if (e.op().equals("force") && file.equals(e.path())) {
        return true;
      }
    }
    return false;
  }

  private boolean syncedAfter(Path dir, int after, Thread thread) {
    for (int j = after + 1; j < events.size(); j++) {
      Event e = events.get(j);
      if (e.op().equals("fsyncDirectory") && dir.equals(e.path()) && e.thread() == thread) {
        return true;
      }
    }
    return false;
  }

  private boolean syncedBetween(Path dir, int from, int to) {
    for (int j = Math.max(0, from + 1); j < to; j++) {
      Event e = events.get(j);
      if (e.op().equals("fsyncDirectory") && dir.equals(e.path())) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code thread} read, before event {@code before}, a file in {@code dir} whose name starts with {@code prefix}. */
  private boolean readBefore(int before, Thread thread, Path dir, String prefix) {
    for (int j = before - 1; j >= 0; j--) {
      Event e = events.get(j);
      if (e.op().equals("readCreatedRecord") && e.thread() == thread && e.path().getParent().equals(dir)
          && e.path().getFileName().toString().startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code thread} read, between events {@code from} and {@code to}, a file in {@code dir} whose name starts with {@code prefix}. */
  private boolean readBetween(int from, int to, Thread thread, Path dir, String prefix) {
    for (int j = from + 1; j < to; j++) {
      Event e = events.get(j);
      if (e.op().equals("readCreatedRecord") && e.thread() == thread && e.path().getParent().equals(dir)
          && e.path().getFileName().toString().startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  private int lastIndex(int before, String op, Path path) {
    return lastIndex(before, op, path, null);
  }

  private int lastIndex(int before, String op, Path path, Thread thread) {
    for (int j = before - 1; j >= 0; j--) {
      Event e = events.get(j);
      if (e.op().equals(op) && (path == null || path.equals(e.path())) && (thread == null || e.thread() == thread)) {
        return j;
      }
    }
    return -1;
  }
}
