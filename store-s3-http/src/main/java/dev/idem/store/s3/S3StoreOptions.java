package dev.idem.store.s3;

import dev.idem.core.store.Deadline;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Tuning of an {@link S3ObjectStore}; immutable, built with {@link #builder()}. The defaults suit AWS
 * S3; every setter documents its bounds.
 */
public final class S3StoreOptions {
  /** 5 MiB: S3's smallest part size (every part but the last). */
  public static final long MIN_PART_SIZE = 5L * 1024 * 1024;
  /** 5 GiB: S3's largest part size. */
  public static final long MAX_PART_SIZE = 5L * 1024 * 1024 * 1024;
  /** S3 allows at most 10,000 parts per upload. */
  public static final int MAX_PARTS = 10_000;
  /**
   * 100 MiB: payloads above this are uploaded in parts (AWS's guidance for when multipart starts to
   * pay). Below it one streamed PUT is cheaper: no part bookkeeping, one request, one signature.
   */
  public static final long DEFAULT_MULTIPART_THRESHOLD = 100L * 1024 * 1024;
  /**
   * 8 MiB, the AWS CLI's default chunk size. Fixed, so the same bytes always upload as the same parts
   * and get the same multipart ETag ({@code md5(md5(part1)‖…)-N}) whichever replica uploads them.
   */
  public static final long DEFAULT_PART_SIZE = 8L * 1024 * 1024;
  /**
   * 8 MiB: payloads of at least this size are looked up with a HEAD before any byte is sent, so an
   * IDENTICAL (or DIVERGENT) publish uploads nothing. Below it the HEAD's round trip costs about what
   * sending the bytes does on a local network, and the conditional write alone decides.
   */
  public static final long DEFAULT_HEAD_FIRST_THRESHOLD = 8L * 1024 * 1024;
  /** 4 parts in flight at once: memory for parts is at most this times the part size (32 MiB by default). */
  public static final int DEFAULT_UPLOAD_PARALLELISM = 4;

  private final PointerMode pointerMode;
  private final boolean pointerModeChosen;
  private final String pointerModeSetting;
  private final long multipartThreshold;
  private final long partSize;
  private final long headFirstThreshold;
  private final int uploadParallelism;
  private final boolean keepEvidenceBytes;
  private final int pageSize;
  private final long knownKeysCacheSize;
  private final int logEntriesKept;
  private final int historyParallelism;
  private final Clock clock;
  private final Duration connectTimeout;
  private final Duration requestTimeout;
  private final Deadline deadline;

  private S3StoreOptions(Builder b) {
    this.pointerMode = b.pointerMode;
    this.pointerModeChosen = b.pointerModeChosen;
    this.pointerModeSetting = b.pointerModeSetting;
    this.multipartThreshold = b.multipartThreshold;
    this.partSize = b.partSize;
    this.headFirstThreshold = b.headFirstThreshold;
    this.uploadParallelism = b.uploadParallelism;
    this.keepEvidenceBytes = b.keepEvidenceBytes;
    this.pageSize = b.pageSize;
    this.knownKeysCacheSize = b.knownKeysCacheSize;
    this.logEntriesKept = b.logEntriesKept;
    this.historyParallelism = b.historyParallelism;
    this.clock = b.clock;
    this.connectTimeout = b.connectTimeout;
    this.requestTimeout = b.requestTimeout;
    this.deadline = b.deadline;
  }

  public static S3StoreOptions defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  public Builder toBuilder() {
    Builder b = new Builder();
    b.pointerMode = pointerMode;
    b.pointerModeChosen = pointerModeChosen;
    b.pointerModeSetting = pointerModeSetting;
    b.multipartThreshold = multipartThreshold;
    b.partSize = partSize;
    b.headFirstThreshold = headFirstThreshold;
    b.uploadParallelism = uploadParallelism;
    b.keepEvidenceBytes = keepEvidenceBytes;
    b.pageSize = pageSize;
    b.knownKeysCacheSize = knownKeysCacheSize;
    b.logEntriesKept = logEntriesKept;
    b.historyParallelism = historyParallelism;
    b.clock = clock;
    b.connectTimeout = connectTimeout;
    b.requestTimeout = requestTimeout;
    b.deadline = deadline;
    return b;
  }

  /** The pointer mode chosen, or {@link PointerMode#CAS} until a store marker says otherwise ({@link #pointerModeChosen}). */
  public PointerMode pointerMode() {
    return pointerMode;
  }

  /**
   * Whether {@link Builder#pointerMode} chose the mode. A store whose mode was not chosen uses the one
   * its marker records ({@link S3StoreProver#adopt}), and {@code cas} where there is no marker yet; one
   * whose mode was chosen is refused where the marker records the other.
   */
  public boolean pointerModeChosen() {
    return pointerModeChosen;
  }

  /** How the pointer mode is set, for the message that refuses a conflict with the marker. */
  public String pointerModeSetting() {
    return pointerModeSetting;
  }

  public long multipartThreshold() {
    return multipartThreshold;
  }

  public long partSize() {
    return partSize;
  }

  public long headFirstThreshold() {
    return headFirstThreshold;
  }

  public int uploadParallelism() {
    return uploadParallelism;
  }

  public boolean keepEvidenceBytes() {
    return keepEvidenceBytes;
  }

  public int pageSize() {
    return pageSize;
  }

  public long knownKeysCacheSize() {
    return knownKeysCacheSize;
  }

  public int logEntriesKept() {
    return logEntriesKept;
  }

  public int historyParallelism() {
    return historyParallelism;
  }

  public Clock clock() {
    return clock;
  }

  /** How long the store's client waits for a connection, when set; else the client's default (10 s). */
  public Optional<Duration> connectTimeout() {
    return Optional.ofNullable(connectTimeout);
  }

  /** How long the store's client waits for a reply's headers, when set; else the client's default (60 s). */
  public Optional<Duration> requestTimeout() {
    return Optional.ofNullable(requestTimeout);
  }

  /** The deadline every request of the store's client ends by, when set. */
  public Optional<Deadline> deadline() {
    return Optional.ofNullable(deadline);
  }

  @Override
  public String toString() {
    return "S3StoreOptions[pointerMode=" + pointerMode + (pointerModeChosen ? "" : " (until a marker says)")
        + ", multipartThreshold=" + multipartThreshold
        + ", partSize=" + partSize + ", headFirstThreshold=" + headFirstThreshold + ", uploadParallelism="
        + uploadParallelism + ", keepEvidenceBytes=" + keepEvidenceBytes + ", pageSize=" + pageSize
        + ", knownKeysCacheSize=" + knownKeysCacheSize + ", logEntriesKept=" + logEntriesKept
        + ", historyParallelism=" + historyParallelism + "]";
  }

  /** Builds {@link S3StoreOptions}; each setter checks its bounds at once. */
  public static final class Builder {
    private PointerMode pointerMode = PointerMode.CAS;
    private boolean pointerModeChosen;
    private String pointerModeSetting = "S3StoreOptions.pointerMode";
    private long multipartThreshold = DEFAULT_MULTIPART_THRESHOLD;
    private long partSize = DEFAULT_PART_SIZE;
    private long headFirstThreshold = DEFAULT_HEAD_FIRST_THRESHOLD;
    private int uploadParallelism = DEFAULT_UPLOAD_PARALLELISM;
    private boolean keepEvidenceBytes = true;
    private int pageSize = 1000;
    private long knownKeysCacheSize = 10_000;
    private int logEntriesKept = 16;
    private int historyParallelism = 8;
    private Clock clock = Clock.systemUTC();
    private Duration connectTimeout;
    private Duration requestTimeout;
    private Deadline deadline;

    private Builder() {}

    /**
     * Chooses {@link PointerMode#CAS} or {@link PointerMode#LOG}. Not chosen (the default), the store
     * uses the mode its marker records, and {@code cas} where there is none yet.
     */
    public Builder pointerMode(PointerMode mode) {
      this.pointerMode = Objects.requireNonNull(mode, "mode");
      this.pointerModeChosen = true;
      return this;
    }

    /**
     * How the pointer mode is set where this store is configured, named in the message that refuses a
     * mode other than the marker's, e.g. {@code IDEM_S3_POINTER_MODE}.
     */
    public Builder pointerModeSetting(String setting) {
      this.pointerModeSetting = Objects.requireNonNull(setting, "setting");
      return this;
    }

    /** Payloads larger than this many bytes go multipart; {@code >= partSize}. Default 100 MiB. */
    public Builder multipartThreshold(long bytes) {
      this.multipartThreshold = bytes;
      return this;
    }

    /**
     * The multipart part size, {@value #MIN_PART_SIZE}–{@value #MAX_PART_SIZE} bytes. Default 8 MiB.
     * Keep it the same for every replica of a deployment: it decides multipart ETags (idem compares
     * SHA-256, so a change breaks nothing, but ETag-based tools would see a difference).
     */
    public Builder partSize(long bytes) {
      this.partSize = bytes;
      return this;
    }

    /**
     * Payloads of at least this many bytes are looked up with a HEAD before the upload: an existing
     * object is compared exactly as after a refused conditional write, and nothing is sent. {@code >=
     * 0}; {@code 0} looks up every payload, {@link Long#MAX_VALUE} none. Default 8 MiB.
     */
    public Builder headFirstThreshold(long bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("head-first threshold must be >= 0, was " + bytes);
      }
      this.headFirstThreshold = bytes;
      return this;
    }

    /**
     * Parts of one multipart upload sent at once, 1–64. Each holds a part-sized buffer, so a publish
     * uses at most this times the part size for parts. Default 4.
     */
    public Builder uploadParallelism(int parts) {
      if (parts < 1 || parts > 64) {
        throw new IllegalArgumentException("upload parallelism must be 1-64, was " + parts);
      }
      this.uploadParallelism = parts;
      return this;
    }

    /**
     * Whether a DIVERGENT publish keeps the offered bytes as evidence (default) or only its divergence
     * marker, which it writes either way, first: the hashes, size, writer and time (an empty object with
     * metadata).
     */
    public Builder keepEvidenceBytes(boolean keep) {
      this.keepEvidenceBytes = keep;
      return this;
    }

    /** Entries per listing request, 1–1000 (S3's maximum and the default). Tests use small pages. */
    public Builder pageSize(int entries) {
      if (entries < 1 || entries > 1000) {
        throw new IllegalArgumentException("page size must be 1-1000, was " + entries);
      }
      this.pageSize = entries;
      return this;
    }

    /** How many keys known to exist are remembered, so {@code exists} costs no request; {@code >= 0}. */
    public Builder knownKeysCacheSize(long keys) {
      if (keys < 0) {
        throw new IllegalArgumentException("known-keys cache size must be >= 0, was " + keys);
      }
      this.knownKeysCacheSize = keys;
      return this;
    }

    /** Newest pointer-log entries per pipeline that {@code sweep} never removes; {@code >= 1}. */
    public Builder logEntriesKept(int entries) {
      if (entries < 1) {
        throw new IllegalArgumentException("log entries kept must be >= 1, was " + entries);
      }
      this.logEntriesKept = entries;
      return this;
    }

    /** Concurrent HEAD requests while the history scan resolves SHA-256s, 1–64. */
    public Builder historyParallelism(int requests) {
      if (requests < 1 || requests > 64) {
        throw new IllegalArgumentException("history parallelism must be 1-64, was " + requests);
      }
      this.historyParallelism = requests;
      return this;
    }

    /** The clock for publish times and sweep ages. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * How long the client the store makes ({@link S3ObjectStore#open}) waits for a connection to be set
     * up; positive. The request timeout also bounds it. Default 10 s.
     */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = requirePositive(timeout, "connect timeout");
      return this;
    }

    /**
     * How long the client the store makes ({@link S3ObjectStore#open}) waits for a reply's headers;
     * positive. Uploads get one extra second per MiB of body on top, and reading a body has this again
     * plus a second per MiB of it, so a server that stalls mid-body fails the request instead of
     * hanging it. Default 60 s.
     */
    public Builder requestTimeout(Duration timeout) {
      this.requestTimeout = requirePositive(timeout, "request timeout");
      return this;
    }

    /**
     * One deadline over every request the client the store makes ({@link S3ObjectStore#open}) sends
     * (B2): a retry whose backoff would end past it is not begun, and the request in flight, a
     * credential fetch it waits for included, is cut at it. Giving up throws a {@link
     * dev.idem.core.store.DeadlineExceededException} naming the deadline. Default none.
     */
    public Builder deadline(Deadline deadline) {
      this.deadline = Objects.requireNonNull(deadline, "deadline");
      return this;
    }

    private static Duration requirePositive(Duration d, String what) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(what + " must be positive, was " + d);
      }
      return d;
    }

    public S3StoreOptions build() {
      if (partSize < MIN_PART_SIZE || partSize > MAX_PART_SIZE) {
        throw new IllegalArgumentException(
            "part size must be " + MIN_PART_SIZE + "-" + MAX_PART_SIZE + " bytes (S3's limits), was " + partSize);
      }
      if (multipartThreshold < partSize) {
        throw new IllegalArgumentException(
            "multipart threshold must be >= the part size " + partSize + ", was " + multipartThreshold);
      }
      return new S3StoreOptions(this);
    }
  }
}
