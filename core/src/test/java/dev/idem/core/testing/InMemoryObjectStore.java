package dev.idem.core.testing;

import dev.idem.core.Names;
import dev.idem.core.Sha256;
import dev.idem.core.store.Acknowledgement;
import dev.idem.core.store.CasResult;
import dev.idem.core.store.Claim;
import dev.idem.core.store.Claims;
import dev.idem.core.store.HistoryEntry;
import dev.idem.core.store.KeyHistory;
import dev.idem.core.store.LeftoverSweep;
import dev.idem.core.store.ListedObject;
import dev.idem.core.store.ObjectInfo;
import dev.idem.core.store.ObjectStore;
import dev.idem.core.store.Payload;
import dev.idem.core.store.Pointer;
import dev.idem.core.store.PointerState;
import dev.idem.core.store.PublishHistory;
import dev.idem.core.store.PutOutcome;
import dev.idem.core.store.PutStatus;
import dev.idem.core.store.Retirement;
import dev.idem.core.store.RetirementMarks;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The simplest correct {@link ObjectStore}: one monitor around a few maps. It is the model the store
 * contract suite and the publisher tests run against, and what a user embedding idem can use in their
 * own tests. Every operation is linearizable (one lock). It has the capabilities {@link
 * PublishHistory}, {@link RetirementMarks}, {@link LeftoverSweep} (memory leaves no leftovers, so its
 * sweep finds none) and {@link Claims} (a claim's age is by this store's clock; claiming is atomic, so
 * two writers never both hold); {@link ForwardingObjectStore#without} hides some.
 */
public final class InMemoryObjectStore
    implements ObjectStore, PublishHistory, RetirementMarks, LeftoverSweep, Claims {
  private record Stored(byte[] bytes, ObjectInfo info) {}

  private final Clock clock;
  private final TreeMap<String, Stored> objects = new TreeMap<>();
  private final TreeMap<String, List<HistoryEntry>> history = new TreeMap<>();
  private final Map<String, PointerState> pointers = new HashMap<>();
  private final Map<String, Retirement> retirements = new HashMap<>();
  private final TreeMap<String, List<Acknowledgement>> acks = new TreeMap<>();
  /** Claim entries by key, each with the instant it was written. */
  private final TreeMap<String, List<Map.Entry<Claim, Instant>>> claims = new TreeMap<>();
  private long pointerVersions;
  private long claimIds;

  public InMemoryObjectStore(Clock clock) {
    this.clock = clock;
  }

  public InMemoryObjectStore() {
    this(Clock.systemUTC());
  }

  @Override
  public String describe() {
    return "memory:";
  }

  @Override
  public synchronized boolean exists(String key) {
    return objects.containsKey(checked(key));
  }

  @Override
  public synchronized Optional<ObjectInfo> stat(String key) {
    return Optional.ofNullable(objects.get(checked(key))).map(Stored::info);
  }

  @Override
  public synchronized Optional<InputStream> open(String key) {
    return Optional.ofNullable(objects.get(checked(key))).map(s -> new ByteArrayInputStream(s.bytes()));
  }

  @Override
  public PutOutcome putIfAbsent(String key, Payload payload, String writerId) throws IOException {
    checked(key);
    Names.requireWriterId(writerId);
    byte[] bytes;
    try (InputStream in = payload.open()) {
      bytes = in.readAllBytes();
    }
    String sha = Sha256.of(bytes);
    if (!sha.equals(payload.sha256())) {
      throw new Payload.ChangedWhileReadingException(payload.toString(), payload.sha256(), sha);
    }
    synchronized (this) {
      Instant now = clock.instant();
      Stored existing = objects.get(key);
      List<HistoryEntry> h = history.computeIfAbsent(key, k -> new ArrayList<>());
      if (existing == null) {
        ObjectInfo info = new ObjectInfo(key, sha, bytes.length, writerId, now);
        objects.put(key, new Stored(bytes, info));
        h.add(new HistoryEntry(key, HistoryEntry.Kind.VERSION, null, now, bytes.length, sha, null, writerId,
            payload.schema()));
        return new PutOutcome(PutStatus.CREATED, info, sha, bytes.length, null);
      }
      if (existing.info().sha256().equals(sha)) {
        h.add(new HistoryEntry(key, HistoryEntry.Kind.IDENTICAL_ATTEMPT, null, now, bytes.length, sha, null, writerId,
            payload.schema()));
        return new PutOutcome(PutStatus.IDENTICAL, existing.info(), sha, bytes.length, null);
      }
      h.add(new HistoryEntry(key, HistoryEntry.Kind.DIVERGENT_ATTEMPT, null, now, bytes.length, sha, null, writerId,
            payload.schema(), existing.info().sha256()));
      return new PutOutcome(PutStatus.DIVERGENT, existing.info(), sha, bytes.length, "memory-evidence/" + key + "/" + sha);
    }
  }

  /** Memory always has room for another object: nothing to check. */
  @Override
  public void checkWritable() {
    // Writable by construction; the check exists for stores whose directory or bucket can refuse.
  }

  @Override
  public synchronized Optional<PointerState> readPointer(String pipeline) {
    return Optional.ofNullable(pointers.get(Names.requirePipeline(pipeline)));
  }

  @Override
  public synchronized CasResult compareAndSetPointer(String pipeline, String expectedToken, Pointer next) {
    Names.requirePipeline(pipeline);
    if (!next.pipeline().equals(pipeline)) {
      throw new IllegalArgumentException("pointer for " + next.pipeline() + " offered to " + pipeline);
    }
    PointerState current = pointers.get(pipeline);
    String currentToken = current == null ? null : current.token();
    if (expectedToken == null ? currentToken != null : !expectedToken.equals(currentToken)) {
      return CasResult.CONFLICT;
    }
    pointers.put(pipeline, new PointerState(next, "v" + (++pointerVersions)));
    return CasResult.SWAPPED;
  }

  @Override
  public boolean history(String prefix, HistoryVisitor visitor) throws IOException {
    List<KeyHistory> snapshot = new ArrayList<>();
    synchronized (this) {
      history.tailMap(prefix, true).forEach((k, v) -> {
        if (k.startsWith(prefix)) {
          snapshot.add(new KeyHistory(k, v));
        }
      });
    }
    for (KeyHistory h : snapshot) {
      if (!visitor.visit(h)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public boolean list(String prefix, ListingVisitor visitor) throws IOException {
    List<ListedObject> snapshot = new ArrayList<>();
    synchronized (this) {
      objects.tailMap(prefix, true).forEach((k, v) -> {
        if (k.startsWith(prefix)) {
          snapshot.add(new ListedObject(k, v.info().size(), v.info().publishedAt()));
        }
      });
    }
    for (ListedObject o : snapshot) {
      if (!visitor.visit(o)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public synchronized boolean delete(String key) {
    return objects.remove(checked(key)) != null;
  }

  /** Forgets the key's history (its versions and attempts, evidence included). */
  @Override
  public synchronized int deleteRecords(String key) {
    List<HistoryEntry> h = history.remove(checked(key));
    return h == null ? 0 : h.size();
  }

  @Override
  public synchronized Optional<Retirement> readRetirement(String pipeline) {
    return Optional.ofNullable(retirements.get(Names.requirePipeline(pipeline)));
  }

  /** Keeps the higher of the stored and the proposed mark (forward only). */
  @Override
  public synchronized Retirement raiseRetirement(Retirement proposed) {
    return retirements.merge(proposed.pipeline(), proposed,
        (current, next) -> next.windowStart() > current.windowStart() ? next : current);
  }

  @Override
  public synchronized void acknowledge(Acknowledgement ack) {
    acks.computeIfAbsent(ack.key(), k -> new ArrayList<>()).add(ack);
  }

  @Override
  public synchronized List<Acknowledgement> acknowledgements(String prefix) {
    List<Acknowledgement> out = new ArrayList<>();
    acks.tailMap(prefix).forEach((key, list) -> {
      if (key.startsWith(prefix)) {
        out.addAll(list);
      }
    });
    return out;
  }

  /** Pipelines with a pointer, and the first segments of the objects' keys that are pipeline names. */
  @Override
  public synchronized SortedSet<String> pipelines() {
    SortedSet<String> names = new TreeSet<>(pointers.keySet());
    for (String key : objects.keySet()) {
      int slash = key.indexOf('/');
      if (slash > 0 && Names.isValidName(key.substring(0, slash))) {
        names.add(key.substring(0, slash));
      }
    }
    return names;
  }

  @Override
  public synchronized Claimed claim(String key, String writer, Duration expected, Duration ttl) {
    Names.requireWriterId(writer);
    List<Claim> entries = claimsOf(checked(key));
    Optional<Claim> fresh = entries.stream().filter(c -> c.isFresh(ttl)).findFirst();
    if (fresh.isPresent()) {
      return new Claimed(Result.TAKEN, fresh.get());
    }
    Claim mine = write(new Claim(key, "unwritten", writer, clock.instant(), expected, Duration.ZERO));
    return new Claimed(Result.HELD, mine, entries.isEmpty() ? null : entries.get(0));
  }

  @Override
  public synchronized Claim renewClaim(Claim held) {
    Claim renewed = write(held);
    releaseClaim(held);
    return renewed;
  }

  @Override
  public synchronized boolean releaseClaim(Claim claim) {
    List<Map.Entry<Claim, Instant>> entries = claims.get(claim.key());
    boolean removed = entries != null && entries.removeIf(e -> e.getKey().id().equals(claim.id()));
    if (entries != null && entries.isEmpty()) {
      claims.remove(claim.key());
    }
    return removed;
  }

  @Override
  public synchronized Optional<Claim> readClaim(String key) {
    return claimsOf(checked(key)).stream().findFirst();
  }

  @Override
  public synchronized List<Claim> listClaims(String prefix) {
    List<Claim> out = new ArrayList<>();
    for (String key : claims.tailMap(prefix).keySet()) {
      if (!key.startsWith(prefix)) {
        break;
      }
      out.addAll(claimsOf(key));
    }
    return out;
  }

  /** The key's claims, freshest first, aged by this store's clock now. */
  private List<Claim> claimsOf(String key) {
    Instant now = clock.instant();
    List<Claim> out = new ArrayList<>();
    for (Map.Entry<Claim, Instant> e : claims.getOrDefault(key, List.of())) {
      Duration age = Duration.between(e.getValue(), now);
      Claim c = e.getKey();
      out.add(new Claim(c.key(), c.id(), c.writer(), c.started(), c.expected(), age.isNegative() ? Duration.ZERO : age));
    }
    out.sort(java.util.Comparator.comparing(Claim::age));
    return out;
  }

  private Claim write(Claim claim) {
    Claim written = claim.renewedAs("claim." + (++claimIds));
    claims.computeIfAbsent(claim.key(), k -> new ArrayList<>()).add(Map.entry(written, clock.instant()));
    return written;
  }

  @Override
  public List<String> sweep(Duration grace, boolean dryRun) {
    return List.of();
  }

  @Override
  public void close() {}

  private static String checked(String key) {
    Names.requireSafeKey(key);
    if (key.startsWith("_idem/")) {
      throw new IllegalArgumentException("key " + key + " is in the store's reserved _idem/ space");
    }
    return key;
  }
}
