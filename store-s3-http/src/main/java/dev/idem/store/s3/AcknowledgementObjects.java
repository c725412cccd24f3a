package dev.idem.store.s3;

import dev.idem.core.Names;
import dev.idem.core.store.Acknowledgement;
import dev.idem.store.s3.internal.client.ObjectSummary;
import dev.idem.store.s3.internal.client.ObjectsPage;
import dev.idem.store.s3.internal.client.S3Client;
import dev.idem.store.s3.internal.client.S3Client.ObjectBytes;
import dev.idem.store.s3.internal.client.VersionsPage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The operators' acknowledgements of divergent keys in an {@link S3ObjectStore} ({@link
 * S3ObjectStore#acknowledge}, {@link S3ObjectStore#acknowledgements}), and the names of the pipelines
 * the store holds ({@link S3ObjectStore#pipelines}): the store's listings of names rather than of keys.
 *
 * <h2>Acknowledgements</h2>
 *
 * One object per acknowledgement, {@code _idem/acks/KEY!ID} ({@code ID} 16 random hex digits; {@code !}
 * continues the key as in the evidence area, {@link KeyLayout}), holding its {@link Acknowledgement}
 * document, created as a new object ({@link NewObjects}: {@code If-None-Match: *}, a name drawn twice
 * drawn again); nothing ever replaces, changes or deletes one (gc leaves them, the audit trail of a
 * divergence whose evidence gc keeps too). Each PUT is atomic, so a reader sees a whole document or none. Read: ListObjectsV2 under {@code _idem/acks/PREFIX} (every page, a
 * repeated token is an error, {@link ListingGuard}) and a GET of each, a few KiB at most; an object that
 * is not a document idem wrote is an error naming it, never an acknowledgement.
 *
 * <h2>Pipelines</h2>
 *
 * Two ListObjectVersions listings with the delimiter {@code /}: the store's prefix, whose directories
 * named as pipelines may be are the pipelines holding objects (whatever else they hold), and {@code
 * _idem/pointers/}, whose directories are the pipelines with a pointer. A directory a server names on
 * more than one page (S3Proxy and S3Mock do) counts once.
 */
final class AcknowledgementObjects {
  static final String ACKS = KeyLayout.INTERNAL + "acks/";
  private static final int MAX_DOCUMENT = 128 * 1024;

  private final S3Client client;
  private final String bucket;
  private final KeyLayout layout;
  private final int pageSize;

  AcknowledgementObjects(S3Client client, String bucket, KeyLayout layout, int pageSize) {
    this.client = client;
    this.bucket = bucket;
    this.layout = layout;
    this.pageSize = pageSize;
  }

  /**
   * @throws IllegalArgumentException when the acknowledgement's key under this prefix would be longer
   *     than an S3 key may be; nothing is written
   */
  void write(Acknowledgement ack) throws IOException {
    Names.requireSafeKey(ack.key());
    String base = layout.prefix() + ACKS + ack.key() + "!";
    int bytes = base.getBytes(StandardCharsets.UTF_8).length + 16;
    if (bytes > KeyLayout.MAX_OBJECT_KEY_BYTES) {
      throw new IllegalArgumentException("the acknowledgement of " + ack.key() + " would be kept at a key of " + bytes
          + " bytes under prefix '" + layout.prefix() + "', and S3 keys stop at " + KeyLayout.MAX_OBJECT_KEY_BYTES);
    }
    NewObjects.create(client, bucket, id -> base + id, ack.toBytes(), "the acknowledgement of " + ack.key());
  }

  List<Acknowledgement> read(String prefix) throws IOException {
    String listPrefix = layout.prefix() + ACKS + prefix;
    List<Acknowledgement> out = new ArrayList<>();
    String token = null;
    ListingGuard<String> guard = new ListingGuard<>("ListObjectsV2 of s3://" + bucket + "/" + listPrefix);
    do {
      ObjectsPage page = client.listObjects(bucket, listPrefix, null, token, pageSize);
      for (ObjectSummary o : page.objects()) {
        String rest = o.key().substring(layout.prefix().length() + ACKS.length());
        int bang = rest.lastIndexOf('!');
        String source = "s3://" + bucket + "/" + o.key();
        if (bang <= 0) {
          throw new Acknowledgement.MalformedAcknowledgementException(source, "not named KEY!ID");
        }
        Optional<ObjectBytes> got = client.getBytes(bucket, o.key(), MAX_DOCUMENT + 1);
        if (got.isPresent()) { // gone since listed: removed by hand, so not one to honour
          out.add(Acknowledgement.parse(got.get().bytes(), source, rest.substring(0, bang)));
        }
      }
      token = guard.next(page.nextContinuationToken());
    } while (token != null);
    out.sort(Comparator.comparing(Acknowledgement::key).thenComparing(Acknowledgement::at));
    return out;
  }

  SortedSet<String> pipelines() throws IOException {
    SortedSet<String> names = new TreeSet<>();
    for (String dir : List.of(layout.prefix(), layout.pointersPrefix())) {
      String keyMarker = null;
      String versionMarker = null;
      ListingGuard<List<String>> guard = new ListingGuard<>("ListObjectVersions of s3://" + bucket + "/" + dir);
      while (true) {
        VersionsPage page = client.listVersions(bucket, dir, "/", keyMarker, versionMarker, pageSize);
        for (String common : page.commonPrefixes()) {
          String name = common.substring(dir.length(), common.length() - 1);
          if (Names.isValidName(name)) {
            names.add(name);
          }
        }
        if (!page.truncated()) {
          break;
        }
        keyMarker = page.nextKeyMarker();
        versionMarker = page.nextVersionIdMarker();
        guard.next(Arrays.asList(keyMarker, versionMarker));
      }
    }
    return names;
  }
}
