package dev.idem.store.s3;

import dev.idem.core.Sha256;
import dev.idem.core.proof.ProbeResult;
import dev.idem.core.proof.StoreMarker;
import dev.idem.core.proof.StoreProver;
import dev.idem.core.store.ObjectStore;
import dev.idem.store.s3.internal.client.MalformedReplyException;
import dev.idem.store.s3.internal.client.ObjectHead;
import dev.idem.store.s3.internal.client.RequestBody;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.internal.client.S3Client.Condition;
import dev.idem.store.s3.internal.client.S3Client.ObjectBytes;
import dev.idem.store.s3.internal.client.S3Exception;
import dev.idem.store.s3.internal.client.WriteResult;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * Proves an S3 bucket prefix before idem writes there: an S3-compatible server that ignores {@code
 * If-None-Match: *} (older MinIO releases, some gateways, a proxy that strips headers) would make two
 * replicas both report CREATED and the second silently replace the first.
 *
 * <h2>Probes, on one scratch key {@code _idem/probe/RANDOM} (and {@code RANDOM-abort}, {@code RANDOM-checksum},
 * {@code RANDOM-raceN-multipart}, {@code RANDOM-raceN-put})</h2>
 *
 * Each probe reads the answer S3 gives; a server that answers otherwise (a 304 where S3 answers 412, a
 * 400 or 501 for a header it does not know) is recorded as not keeping the guarantee, since idem's
 * writes read only S3's answer. A failure that says nothing about the guarantee (credentials or
 * permission refused, a missing bucket, a server error that outlasted the retries) ends the probing
 * with that error.
 *
 * <ol>
 *   <li>{@code if-none-match}: a PUT with {@code If-None-Match: *} creates it; a second such PUT with other
 *       bytes must be refused (412). Required: the create-only publish (P2, P3) is built on it.
 *   <li>{@code if-match}: a PUT with {@code If-Match} naming an ETag the object does not have must be
 *       refused (412 or 404). Required in {@link PointerMode#CAS}, where the pointer swap is built on it;
 *       recorded but not required in {@link PointerMode#LOG}, which uses create-only writes only. A probe
 *       shows the header is honoured, not that it is atomic under concurrent writers. It runs before any
 *       upload to the key is aborted, so it always meets an object there.
 *   <li>{@code if-none-match-multipart}: a one-part multipart upload completed onto it with {@code
 *       If-None-Match: *} must be refused. Required: payloads above the multipart threshold are
 *       published that way. The upload declares CRC32C part checksums as publishes do, and its part is
 *       sent {@code UNSIGNED-PAYLOAD} with its {@code x-amz-checksum-crc32c}, as a publish's parts travel
 *       to an https endpoint (to a plain-http one they sign their SHA-256 as well), so a server that
 *       refuses those fails here, before a publish. An upload that was not completed is aborted afterwards.
 *   <li>{@code abort-keeps-object}: on {@code RANDOM-abort}, which holds an object, a one-part multipart
 *       upload is aborted; the object must still be there, the same. Required: a multipart publish that
 *       is refused or fails aborts its upload, and an abort that took the object at the key with it
 *       (Adobe S3Mock's does) would delete another replica's published object.
 *   <li>{@code part-checksum-crc32c}: a part whose {@code x-amz-checksum-crc32c} does not match its
 *       bytes should be refused (S3 and S3Proxy answer 400 {@code BadDigest}). Recorded, not required:
 *       a part is checked against the payload's hash pass before it is sent, so a payload that changed
 *       is refused on any server. Where the server does not verify the header, what checks a part's
 *       transfer is the part's signed SHA-256 on a plain-http endpoint and TLS on an https one; only a
 *       part body read from a buffer the publisher already reused (a request abandoned by its timeout
 *       still sending) is then unchecked over https.
 *   <li>{@code put-checksum-sha256}: an {@code UNSIGNED-PAYLOAD} PUT whose signed {@code
 *       x-amz-checksum-sha256} does not match its bytes must be refused (400) and leave nothing at its
 *       key, and one whose header matches must be accepted. Recorded, not required; where it holds, the
 *       store's single PUTs carry their SHA-256 in that header instead of signing it as the payload hash
 *       ({@link #adopt}), which the server then verifies as the body arrives (S3Proxy buffers a signed
 *       body whole to hash it). Where it does not, single PUTs keep the signed payload hash: on plain
 *       http that signature is what stops bytes rewritten in transit.
 *   <li>{@code if-none-match-atomic}: create-only writes racing onto one fresh key, of which at most one
 *       may succeed ({@link #racingCreates}). Where more than one succeeded (moto applies racing
 *       completions nearly always, and racing PUTs of a few MiB often: its condition is a look-up, then
 *       a write, in a threaded server), a later publish can replace an earlier one without a 412. Required
 *       unless the winners' replies named versions (a versioned bucket): there every publish then lists
 *       its key's versions and gives way to a version under its own ({@link #adopt}, {@link KeyLife}), so
 *       the server is accepted; on an unversioned bucket nothing could see the replaced write, and the
 *       store is refused. Only probed where the probes above showed create-only writes refused one at a
 *       time: where they are not, the store is refused anyway.
 * </ol>
 *
 * The scratch keys are deleted afterwards, whatever the answers (in a versioned bucket their versions
 * stay behind a delete marker). The marker is created with {@code If-None-Match: *}, which the first
 * probe has just shown to work.
 *
 * <h2>Racing creates</h2>
 *
 * A probe can show that a race was won twice, never that none can be: a server that let one write of
 * each race here succeed may still let two succeed in a race timed otherwise. What the probe can do is
 * race as publishes do, so that a server whose check and write stand apart shows it: {@value
 * #RACE_ROUNDS} rounds, stopping at the first race more than one write won, each round racing {@value
 * #RACE_WRITERS} CompleteMultipartUpload requests with {@code If-None-Match: *} onto one fresh key, then
 * {@value #RACE_WRITERS} PutObject requests with {@code If-None-Match: *} onto another, released together
 * on the store's threads once every upload is ready. A server that checks the key and then stores the
 * object has a window that grows with the bytes it stores after the check (moto copies the parts into
 * the object, and writes a PUT's body, between the two), so each write carries 5 MiB, S3's smallest part:
 * no more than any part a publish sends, and far less than a single PUT near the multipart threshold
 * (moto lets two racing completions of a 5 MiB part succeed nearly every time, of a few hundred KiB
 * rarely). Two writers make the smallest race. A round's races can all miss on a server that does race
 * (moto, now and then, its threads scheduled apart), so further rounds give it more
 * chances, each as good as the first; the rounds are bounded so that what a server where no race is won
 * twice (AWS S3, S3Proxy) pays is fixed, while one that shows a race stops at once. That cost is {@value
 * #RACE_ROUNDS} × 2 × {@value #RACE_WRITERS} writes of 5 MiB (60 MiB) in {@value #RACE_ROUNDS} × (5 ×
 * {@value #RACE_WRITERS} + 1) requests: per writer of a completion race a CreateMultipartUpload, an UploadPart, the completion and
 * an abort (or, for the winner, the delete of its version), per writer of a PUT race the PUT, and the
 * delete of the winner's version; once per store, when its marker is created, and on each {@code idem
 * doctor}. Each write's version is deleted by its id where the reply names one, so in a versioned bucket
 * no 5 MiB version stays behind.
 *
 * <h2>Failure states</h2>
 *
 * An {@link IOException} during a probe (unreachable, credentials refused) may leave scratch keys and
 * incomplete uploads; they are under {@code _idem/}, which listings, history and publishes never touch,
 * and gc sweeps the uploads. Answers judged before it were handed to {@link #probe(Consumer)}'s
 * consumer. A clean-up step that fails (an abort answered 405, say) leaves the same and is dropped: it
 * never replaces a verdict or the failure being thrown. An {@link IOException} creating the marker
 * leaves either no marker or a whole one.
 */
public final class S3StoreProver implements StoreProver {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final int MAX_MARKER_BYTES = 16 * 1024;
  /** An ETag no object has: 32 hex zeros, quoted like S3's. */
  private static final String WRONG_ETAG = "\"" + "0".repeat(32) + "\"";
  private static final String CHECKSUM_SHA256 = "put-checksum-sha256";
  private static final String ABORT_KEEPS_OBJECT = "abort-keeps-object";
  private static final String ABORT = "AbortMultipartUpload";
  private static final String OTHER_SHA256 = Sha256.of("other bytes".getBytes(StandardCharsets.US_ASCII));
  private static final String RACING_CREATES = "if-none-match-atomic";
  /** Rounds of racing creates, each a race of completions and a race of PUTs; see the class comment. */
  static final int RACE_ROUNDS = 3;
  /** Writers in each race. */
  static final int RACE_WRITERS = 2;
  /** The bytes of each racing write: S3's smallest multipart part. */
  private static final int RACE_BYTES = Math.toIntExact(S3StoreOptions.MIN_PART_SIZE);

  private final S3ObjectStore store;
  private final S3Client client;
  private final S3Location location;
  private final KeyLayout layout;
  private final Clock clock;

  private S3StoreProver(S3ObjectStore store) {
    this.store = store;
    this.client = store.client();
    this.location = store.location();
    this.layout = new KeyLayout(location.prefix());
    this.clock = store.options().clock();
  }

  /** The prover of {@code store}: same client, location and pointer mode; its options' clock for the skew. */
  public static S3StoreProver of(S3ObjectStore store) {
    return new S3StoreProver(store);
  }

  /**
   * The store configured with what the trusted marker records about the server ({@link ProbeAnswers}):
   * whether it verifies {@code x-amz-checksum-sha256} (single PUTs then carry their SHA-256 there), and
   * whether it applied two racing create-only writes (every publish then checks the versions under its
   * own). A marker without an answer (written before that probe existed) records neither.
   *
   * @param wrapped the store {@link dev.idem.core.proof.ProvenStore} wraps, which must be this prover's
   * @return a view of this prover's store that shares its client, threads, caches and pointer mode
   */
  @Override
  public ObjectStore adopt(StoreMarker marker, ObjectStore wrapped) {
    if (wrapped != store) {
      throw new IllegalArgumentException("the prover of " + store + " was asked to configure " + wrapped);
    }
    boolean verifiesChecksum = marker.probe(CHECKSUM_SHA256).map(ProbeResult::held).orElse(false);
    boolean racing = marker.probe(RACING_CREATES).map(r -> !r.held()).orElse(false);
    return store.configuredBy(new ProbeAnswers(verifiesChecksum, racing));
  }

  @Override
  public void followMarkerMode(StoreMarker marker) {
    try {
      store.followPointerMode(PointerMode.parse(marker.pointerMode()));
    } catch (IllegalArgumentException unknown) {
      // left as it is: ProvenStore refuses the store, naming both modes
    }
  }

  @Override
  public boolean pointerModeChosen() {
    return store.options().pointerModeChosen();
  }

  @Override
  public String pointerModeSetting() {
    return store.options().pointerModeSetting();
  }

  @Override
  public String kind() {
    return "s3";
  }

  @Override
  public String pointerMode() {
    return store.pointerMode().toString();
  }

  /**
   * In {@code cas} mode, that {@code If-Match} is atomic when writers race: the probe shows only that the
   * server refuses a wrong ETag, and S3Proxy, which does, lets several racing writers win.
   */
  @Override
  public List<String> unchecked() {
    return store.pointerMode() == PointerMode.CAS
        ? List.of("if-match atomicity: a probe sends one request at a time, so it cannot show that the server "
            + "applies If-Match atomically when writers race; cas mode relies on it (AWS S3 does; S3Proxy does "
            + "not): on a server that does not, or one you have not verified, use IDEM_S3_POINTER_MODE=log")
        : List.of();
  }

  @Override
  public String markerLocation() {
    return "s3://" + location.bucket() + "/" + layout.object(StoreMarker.KEY);
  }

  @Override
  public Optional<StoreMarker> readMarker() throws IOException {
    Optional<ObjectBytes> got = client.getBytes(location.bucket(), layout.object(StoreMarker.KEY), MAX_MARKER_BYTES);
    if (got.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(StoreMarker.parse(got.get().bytes(), markerLocation()));
  }

  @Override
  public List<ProbeResult> probe() throws IOException {
    return probe(r -> {});
  }

  @Override
  public List<ProbeResult> probe(Consumer<ProbeResult> judged) throws IOException {
    String scratch = StoreMarker.PROBE_PREFIX + randomId();
    String key = layout.object(scratch);
    List<ProbeResult> results = new ArrayList<>();
    Consumer<ProbeResult> answer = r -> {
      results.add(r);
      judged.accept(r);
    };
    try {
      WriteResult first = put(key, "first", Condition.ifNoneMatch());
      if (first.status() != WriteResult.Status.WRITTEN) {
        throw new IOException("create-only PUT of the fresh scratch key " + scratch + " at " + location
            + " answered " + first.status() + "; cannot probe the store");
      }
      ProbeResult createOnly = ifNoneMatch(key, scratch);
      answer.accept(createOnly);
      // Before anything aborts an upload to the scratch key: on a server whose abort deletes the object
      // at the key, a later If-Match would meet no object and its 404 would pass for a refusal.
      answer.accept(ifMatch(key, scratch));
      ProbeResult multipartCreateOnly = multipartIfNoneMatch(key, scratch);
      answer.accept(multipartCreateOnly);
      answer.accept(abortKeepsObject(scratch + "-abort"));
      answer.accept(partChecksum(key, scratch));
      answer.accept(checksumSha256(scratch + "-checksum"));
      if (createOnly.held() && multipartCreateOnly.held()) {
        answer.accept(racingCreates(scratch));
      }
    } finally {
      cleanUp(() -> client.delete(location.bucket(), key));
    }
    return results;
  }

  /** A second PUT with {@code If-None-Match: *} onto the scratch key must be refused with 412. */
  private ProbeResult ifNoneMatch(String key, String scratch) throws IOException {
    String test = "a second PUT with If-None-Match: * to " + scratch;
    String reliance = "idem's no-clobber publish depends on it";
    WriteResult second;
    try {
      second = put(key, "second", Condition.ifNoneMatch());
    } catch (S3Exception e) {
      return ProbeResult.missing("if-none-match", test, true, "does not refuse a second create-only PUT of "
          + scratch + " as S3 does (" + answered(e) + ", not 412)", reliance);
    }
    return switch (second.status()) {
      case PRECONDITION_FAILED -> ProbeResult.held("if-none-match", test, true, "refused it (412)", reliance);
      case WRITTEN -> ProbeResult.missing("if-none-match", test, true,
          "ignores If-None-Match: * (a second create-only PUT of " + scratch + " succeeded)", reliance);
      case NOT_FOUND -> ProbeResult.missing("if-none-match", test, true, "does not refuse a second create-only PUT"
          + " of " + scratch + " as S3 does (answered 404, not 412)", reliance);
    };
  }

  /** A PUT with an {@code If-Match} naming an ETag the scratch key does not have must be refused. */
  private ProbeResult ifMatch(String key, String scratch) throws IOException {
    String test = "a PUT with If-Match: " + WRONG_ETAG + " (an ETag it does not have) to " + scratch;
    String reliance = "the cas pointer mode depends on it, and on its being atomic under concurrent writers,"
        + " which no probe can show (IDEM_S3_POINTER_MODE=log needs only If-None-Match)";
    boolean required = store.pointerMode() == PointerMode.CAS;
    WriteResult wrong;
    try {
      wrong = put(key, "third", Condition.ifMatch(WRONG_ETAG));
    } catch (S3Exception e) {
      return ProbeResult.missing("if-match", test, required, "does not refuse a PUT of " + scratch + " with a wrong"
          + " If-Match ETag as S3 does (" + answered(e) + ", not 412)", reliance);
    }
    return wrong.status() != WriteResult.Status.WRITTEN
        ? ProbeResult.held("if-match", test, required, "refused it ("
            + (wrong.status() == WriteResult.Status.NOT_FOUND ? "404" : "412") + ")", reliance)
        : ProbeResult.missing("if-match", test, required,
            "ignores If-Match (a PUT of " + scratch + " with a wrong If-Match ETag succeeded)", reliance);
  }

  /**
   * An {@code UNSIGNED-PAYLOAD} PUT to the fresh {@code scratch} whose {@code x-amz-checksum-sha256} is
   * another content's must be refused with 400 and leave nothing; then one with the right header must
   * create it. Any other answer (the wrong one accepted, refused with another status such as 501 from a
   * server without checksum headers, the right one refused) is recorded as not verified: single PUTs then
   * keep signing the payload, which every SigV4 server checks. Package-private for tests.
   */
  ProbeResult checksumSha256(String scratch) throws IOException {
    String test = "an UNSIGNED-PAYLOAD PUT to " + scratch + " whose x-amz-checksum-sha256 does not match its"
        + " bytes, then one whose does";
    String reliance = "single PUTs carry their SHA-256 in x-amz-checksum-sha256 instead of signing the payload"
        + " only where it holds";
    String fallback = "; single PUTs sign the payload";
    String key = layout.object(scratch);
    byte[] bytes = "sixth".getBytes(StandardCharsets.US_ASCII);
    // The SHA-256 of other bytes; the CRC32C is these bytes' own, so idem's check while sending passes.
    int crc = crc32c(bytes);
    try {
      String refused;
      try {
        WriteResult wrong = client.put(location.bucket(), key, RequestBody.ofStreamWithChecksum(
            () -> new ByteArrayInputStream(bytes), bytes.length, OTHER_SHA256, crc, scratch),
            Condition.ifNoneMatch(), Map.of());
        return ProbeResult.missing(CHECKSUM_SHA256, test, false, "accepted a body that does not match its"
            + " x-amz-checksum-sha256 (answered " + wrong.status() + fallback + ")", reliance);
      } catch (S3Exception e) {
        if (e.status() != 400) {
          return ProbeResult.missing(CHECKSUM_SHA256, test, false, "answered " + e.status() + " " + e.code()
              + " (not a 400 refusal of the body" + fallback + ")", reliance);
        }
        refused = "refused it (400 " + e.code() + ")";
      }
      if (client.head(location.bucket(), key, null).isPresent()) {
        return ProbeResult.missing(CHECKSUM_SHA256, test, false, refused + " but stored it anyway" + fallback,
            reliance);
      }
      try {
        WriteResult right = client.put(location.bucket(), key, RequestBody.ofStreamWithChecksum(
            () -> new ByteArrayInputStream(bytes), bytes.length, Sha256.of(bytes), crc, scratch),
            Condition.ifNoneMatch(), Map.of());
        if (right.status() != WriteResult.Status.WRITTEN) {
          return ProbeResult.missing(CHECKSUM_SHA256, test, false, refused + ", then answered " + right.status()
              + " to a matching one on the fresh key" + fallback, reliance);
        }
      } catch (S3Exception again) {
        return ProbeResult.missing(CHECKSUM_SHA256, test, false, refused + ", and a matching one too ("
            + again.status() + " " + again.code() + fallback + ")", reliance);
      }
      return ProbeResult.held(CHECKSUM_SHA256, test, false, refused + ", stored nothing, and accepted a"
          + " matching one", reliance);
    } finally {
      cleanUp(() -> client.delete(location.bucket(), key));
    }
  }

  /**
   * CompleteMultipartUpload with {@code If-None-Match: *} onto the existing scratch key must be refused
   * with 412. An upload that was not completed is aborted afterwards; one that was is not (there is
   * nothing left to abort, and some servers answer such an abort with an error).
   */
  private ProbeResult multipartIfNoneMatch(String key, String scratch) throws IOException {
    String test = "a one-part multipart upload to " + scratch + " completed with If-None-Match: *";
    String reliance = "idem's no-clobber publish of payloads above the multipart threshold depends on it";
    String ignored = "ignores If-None-Match: * on CompleteMultipartUpload (a completion onto the existing " + scratch
        + " succeeded";
    String uploadId = client.createMultipartUpload(location.bucket(), key, Map.of());
    boolean pending = true;
    try {
      byte[] part = "fourth".getBytes(StandardCharsets.US_ASCII);
      int crc = crc32c(part);
      String etag = client.uploadPart(location.bucket(), key, uploadId, 1, RequestBody.ofPart(part, 0, part.length, crc));
      WriteResult done;
      try {
        done = client.completeMultipartUpload(location.bucket(), key, uploadId, List.of(etag),
            List.of(RequestBody.crc32cBase64(crc)), Condition.ifNoneMatch());
      } catch (MalformedReplyException e) {
        pending = false; // answered 2xx: completed, with a reply this client does not read
        return ProbeResult.missing("if-none-match-multipart", test, true, ignored + "; " + e.getMessage() + ")",
            reliance);
      } catch (S3Exception e) {
        return ProbeResult.missing("if-none-match-multipart", test, true, "does not refuse a CompleteMultipartUpload"
            + " with If-None-Match: * onto the existing " + scratch + " as S3 does (" + answered(e) + ", not 412)",
            reliance);
      }
      if (done.status() == WriteResult.Status.NOT_FOUND) {
        pending = false;
        throw new IOException("the probe's multipart upload to " + scratch + " at " + location + " vanished before"
            + " it was completed; cannot tell whether the server honours If-None-Match on completion");
      }
      if (done.status() == WriteResult.Status.WRITTEN) {
        pending = false;
        return ProbeResult.missing("if-none-match-multipart", test, true, ignored + ")", reliance);
      }
      return ProbeResult.held("if-none-match-multipart", test, true, "refused it (412)", reliance);
    } finally {
      if (pending) {
        cleanUp(() -> client.abortMultipartUpload(location.bucket(), key, uploadId));
      }
    }
  }

  /** One race of create-only writes onto a fresh scratch key: how many succeeded, and whether each reply named a version. */
  private record Race(String scratch, String writes, int won, boolean versioned) {}

  /**
   * Create-only writes racing onto fresh keys {@code scratch-raceN-multipart} and {@code scratch-raceN-put}
   * (see the class comment): held when no race was won by more than one write. Where one was, the answer
   * is required unless every winner's reply named a version. Package-private for tests.
   */
  ProbeResult racingCreates(String scratch) throws IOException {
    String test = "up to " + RACE_ROUNDS + " rounds of " + RACE_WRITERS + " one-part multipart uploads (" + RACE_BYTES
        / (1024 * 1024) + " MiB parts) to a fresh key under _idem/probe/ completed at once with If-None-Match: *,"
        + " then " + RACE_WRITERS + " PUTs of as many bytes at once with If-None-Match: * to another";
    String reliance = "concurrent publishes of one key must leave one CREATED and the first one's bytes; where"
        + " racing creates can both succeed, only a versioned bucket lets the later one find the earlier under its"
        + " own and give way";
    byte[] bytes = new byte[RACE_BYTES];
    int crc = crc32c(bytes);
    boolean versioned = true;
    for (int round = 1; round <= RACE_ROUNDS; round++) {
      for (Race race : List.of(raceCompletions(scratch + "-race" + round + "-multipart", bytes, crc),
          racePuts(scratch + "-race" + round + "-put", bytes))) {
        versioned &= race.versioned();
        if (race.won() > 1) {
          String observed = "does not apply If-None-Match: * atomically (" + RACING_CREATES + "): " + race.won()
              + " of " + RACE_WRITERS + " create-only " + race.writes() + " racing onto " + race.scratch()
              + " succeeded; " + (race.versioned()
                  ? "their replies named versions, so every publish lists its key's versions and gives way to"
                      + " one under its own"
                  : "their replies named no version (an unversioned bucket), so a later write would replace an"
                      + " earlier one unseen");
          return ProbeResult.missing(RACING_CREATES, test, !race.versioned(), observed, reliance);
        }
      }
    }
    return ProbeResult.held(RACING_CREATES, test, !versioned, "one write of each of its " + 2 * RACE_ROUNDS
        + " races succeeded (a race not won twice here is no proof that none can be)", reliance);
  }

  /**
   * {@value #RACE_WRITERS} one-part multipart uploads to the fresh {@code scratch}, each completed with
   * {@code If-None-Match: *} at once. Afterwards the uploads not completed are aborted and every version
   * created is deleted.
   */
  private Race raceCompletions(String scratch, byte[] part, int crc) throws IOException {
    String key = layout.object(scratch);
    List<String> uploads = new ArrayList<>();
    List<String> etags = new ArrayList<>();
    List<WriteResult> done = new ArrayList<>();
    try {
      for (int w = 0; w < RACE_WRITERS; w++) {
        uploads.add(client.createMultipartUpload(location.bucket(), key, Map.of()));
        etags.add(client.uploadPart(location.bucket(), key, uploads.get(w), 1, RequestBody.ofPart(part, 0, part.length,
            crc)));
      }
      List<String> checksums = List.of(RequestBody.crc32cBase64(crc));
      atOnce(w -> client.completeMultipartUpload(location.bucket(), key, uploads.get(w), List.of(etags.get(w)),
          checksums, Condition.ifNoneMatch()), done);
      return race(scratch, "completions", done);
    } finally {
      for (int w = 0; w < uploads.size(); w++) {
        if (w >= done.size() || !written(done.get(w))) {
          String uploadId = uploads.get(w);
          cleanUp(() -> client.abortMultipartUpload(location.bucket(), key, uploadId));
        }
      }
      removeWritten(key, done);
    }
  }

  /** {@value #RACE_WRITERS} PUTs of {@code bytes} to the fresh {@code scratch} with {@code If-None-Match: *} at once. */
  private Race racePuts(String scratch, byte[] bytes) throws IOException {
    String key = layout.object(scratch);
    RequestBody body = RequestBody.ofBytes(bytes);
    List<WriteResult> done = new ArrayList<>();
    try {
      atOnce(w -> client.put(location.bucket(), key, body, Condition.ifNoneMatch(), Map.of()), done);
      return race(scratch, "PUTs", done);
    } finally {
      removeWritten(key, done);
    }
  }

  private static Race race(String scratch, String writes, List<WriteResult> done) {
    List<WriteResult> won = done.stream().filter(S3StoreProver::written).toList();
    return new Race(scratch, writes, won.size(), won.stream().allMatch(w -> w.versionId() != null));
  }

  /** Deletes what the race wrote: each version by its id, or the key where a reply named none. */
  private void removeWritten(String key, List<WriteResult> done) {
    for (WriteResult w : done) {
      if (written(w)) {
        cleanUp(() -> {
          if (w.versionId() != null) {
            client.deleteVersion(location.bucket(), key, w.versionId());
          } else {
            client.delete(location.bucket(), key);
          }
        });
      }
    }
  }

  /** One racing writer's request, by its index. */
  @FunctionalInterface
  private interface Write {
    WriteResult send(int writer) throws IOException;
  }

  /** Whether a racing write succeeded; null for a writer that failed. */
  private static boolean written(WriteResult w) {
    return w != null && w.status() == WriteResult.Status.WRITTEN;
  }

  /**
   * {@value #RACE_WRITERS} writes on the store's threads, released together, their results added to
   * {@code into} in writer order once every one has ended (null for a writer that failed), so that the
   * caller removes what was written even when one failed.
   *
   * @throws IOException the first writer's failure, after every writer ended
   */
  private void atOnce(Write write, List<WriteResult> into) throws IOException {
    CountDownLatch go = new CountDownLatch(1);
    List<Future<WriteResult>> writers = new ArrayList<>();
    try {
      for (int w = 0; w < RACE_WRITERS; w++) {
        int writer = w;
        writers.add(store.executor().submit(() -> {
          go.await();
          try {
            return write.send(writer);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }));
      }
    } catch (RejectedExecutionException e) {
      writers.forEach(f -> f.cancel(true));
      throw new IOException("the store was closed while probing " + location, e);
    } finally {
      go.countDown();
    }
    IOException failed = null;
    for (Future<WriteResult> f : writers) {
      try {
        into.add(Futures.join(f));
      } catch (IOException e) {
        into.add(null);
        failed = failed == null ? e : failed;
      }
    }
    if (failed != null) {
      throw failed;
    }
  }

  /**
   * A multipart upload to the fresh {@code scratch}, which holds an object, with one part, aborted: the
   * object must still be there, the same. Publishes abort the upload of a refused completion (another
   * replica created the key first) and of a failed one; an abort that takes the object at the key with
   * it would delete the winner's object.
   */
  private ProbeResult abortKeepsObject(String scratch) throws IOException {
    String test = "an object PUT at " + scratch + ", then a one-part multipart upload to it aborted, then a HEAD of "
        + scratch;
    String reliance = "a multipart publish that is refused (another replica created the key first) or fails aborts"
        + " its upload, and the object at the key must stay";
    String key = layout.object(scratch);
    try {
      WriteResult before = put(key, "abort", Condition.ifNoneMatch());
      if (before.status() != WriteResult.Status.WRITTEN) {
        throw new IOException("create-only PUT of the fresh scratch key " + scratch + " at " + location
            + " answered " + before.status() + "; cannot probe the store");
      }
      String uploadId = client.createMultipartUpload(location.bucket(), key, Map.of());
      byte[] part = "aborted".getBytes(StandardCharsets.US_ASCII);
      try {
        client.uploadPart(location.bucket(), key, uploadId, 1, RequestBody.ofPart(part, 0, part.length, crc32c(part)));
      } catch (IOException e) {
        cleanUp(() -> client.abortMultipartUpload(location.bucket(), key, uploadId));
        throw e;
      }
      String abort = ABORT;
      try {
        client.abortMultipartUpload(location.bucket(), key, uploadId);
      } catch (S3Exception e) {
        abort = "an AbortMultipartUpload that " + answered(e);
      }
      Optional<ObjectHead> after = client.head(location.bucket(), key, null);
      if (after.isEmpty()) {
        return ProbeResult.missing(ABORT_KEEPS_OBJECT, test, true, "deletes the object at a key when a multipart"
            + " upload to that key is aborted (" + scratch + " was gone after " + abort + ")", reliance);
      }
      String etag = after.get().etag();
      if (etag != null && !etag.equals(before.etag())) {
        return ProbeResult.missing(ABORT_KEEPS_OBJECT, test, true, "replaces the object at a key when a multipart"
            + " upload to that key is aborted (" + scratch + " held another object after " + abort + ")", reliance);
      }
      return ProbeResult.held(ABORT_KEEPS_OBJECT, test, true, abort.equals(ABORT) ? "kept it"
          : "kept it (after " + abort + ")", reliance);
    } finally {
      cleanUp(() -> client.delete(location.bucket(), key));
    }
  }

  /** UploadPart with an {@code x-amz-checksum-crc32c} its bytes do not have: does the server refuse it? */
  private ProbeResult partChecksum(String key, String scratch) throws IOException {
    String test = "an UploadPart to " + scratch + " whose x-amz-checksum-crc32c does not match its bytes";
    String reliance = "checks a part's transfer; a payload that changed is refused by idem's own check either way";
    String uploadId = client.createMultipartUpload(location.bucket(), key, Map.of());
    try {
      byte[] part = "fifth".getBytes(StandardCharsets.US_ASCII);
      client.uploadPart(location.bucket(), key, uploadId, 1, RequestBody.ofPart(part, 0, part.length, ~crc32c(part)));
      return ProbeResult.missing("part-checksum-crc32c", test, false,
          "accepted it (parts' transfers are unchecked; changed payloads are still refused)", reliance);
    } catch (S3Exception e) {
      if (e.status() != 400) {
        throw e;
      }
      return ProbeResult.held("part-checksum-crc32c", test, false, "refused it (400 " + e.code() + ")", reliance);
    } finally {
      cleanUp(() -> client.abortMultipartUpload(location.bucket(), key, uploadId));
    }
  }

  /**
   * {@code answered 304} (with the error code when there is one): a server's own answer to a conditional
   * request or an abort that is not S3's, which the probe records as a verdict.
   *
   * @throws S3Exception {@code e} itself when it says nothing about the guarantee: the credentials or
   *     the permission refused, the bucket missing, a redirect to another endpoint, or a server error
   *     that outlasted the retries
   */
  private static String answered(S3Exception e) throws S3Exception {
    int s = e.status();
    boolean verdict = (s == 304 || (s >= 400 && s < 500 && s != 401 && s != 403)) && !e.isNoSuchBucket()
        && !e.isCredentialsRejected() && !e.isRetryable();
    if (!verdict) {
      throw e;
    }
    return "answered " + s + (e.code() != null ? " " + e.code() : "");
  }

  /** A step that undoes a probe's writes; see {@link #cleanUp}. */
  @FunctionalInterface
  private interface Undo {
    void run() throws IOException;
  }

  /**
   * Runs a clean-up step. Its failure (an abort of an upload the server has let go of answered 405, an
   * unreachable server) is dropped: it must never replace the verdict or the failure being reported,
   * and it leaves at most scratch under {@code _idem/probe/} (an incomplete upload, which {@code idem
   * gc} sweeps, or a small object).
   */
  private static void cleanUp(Undo undo) {
    try {
      undo.run();
    } catch (InterruptedIOException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      // dropped, as said above
    }
  }

  private static int crc32c(byte[] b) {
    CRC32C crc = new CRC32C();
    crc.update(b);
    return (int) crc.getValue();
  }

  private WriteResult put(String key, String content, Condition condition) throws IOException {
    return client.put(location.bucket(), key, RequestBody.ofBytes(content.getBytes(StandardCharsets.US_ASCII)),
        condition, Map.of());
  }

  @Override
  public boolean createMarker(StoreMarker marker) throws IOException {
    WriteResult w = client.put(location.bucket(), layout.object(StoreMarker.KEY), RequestBody.ofBytes(marker.toBytes()),
        Condition.ifNoneMatch(), Map.of());
    if (w.status() == WriteResult.Status.NOT_FOUND) {
      throw new IOException("create-only PUT of " + markerLocation() + " answered 404");
    }
    return w.status() == WriteResult.Status.WRITTEN;
  }

  /**
   * Endpoint, region, addressing, bucket versioning, credentials source (resolved by the versioning
   * request) and the clock skew against the server's {@code Date}.
   */
  @Override
  public Map<String, String> environment() throws IOException {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("store", location.toString());
    env.put("endpoint", client.endpoint().toString());
    env.put("region", client.region());
    env.put("addressing", client.pathStyle() ? "path-style" : "virtual-hosted");
    env.put("pointer_mode", pointerMode());
    env.put("versioning", versioning());
    env.put("credentials", client.credentialsSource());
    Instant before = clock.instant();
    Optional<Instant> server = client.serverTime(location.bucket());
    env.put("clock_skew", server.map(s -> skew(s, before)).orElse("unknown (no Date header in the reply)"));
    return env;
  }

  private String versioning() throws IOException {
    Optional<String> status;
    try {
      status = client.bucketVersioning(location.bucket());
    } catch (S3Exception e) {
      if (e.status() == 403 && !e.isCredentialsRejected()) {
        return "unknown (GetBucketVersioning denied: grant s3:GetBucketVersioning to see it)";
      }
      throw e;
    }
    return status.orElse("never enabled")
        + (status.filter("Enabled"::equals).isPresent() ? "" : " (the scan cannot see legacy overwrites of a key)");
  }

  /** The server's clock against ours; the header has whole seconds, so within a second is no skew. */
  static String skew(Instant server, Instant local) {
    Duration d = Duration.between(local.truncatedTo(ChronoUnit.SECONDS), server);
    long s = d.getSeconds();
    if (Math.abs(s) <= 1) {
      return "none measurable (server Date " + server + ", within 1 s of this host)";
    }
    return (s > 0 ? "server " + s + " s ahead" : "server " + -s + " s behind") + " of this host (server Date "
        + server + ")";
  }

  private static String randomId() {
    byte[] b = new byte[12];
    RANDOM.nextBytes(b);
    return HexFormat.of().formatHex(b);
  }
}
