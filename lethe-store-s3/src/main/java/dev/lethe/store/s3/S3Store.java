package dev.lethe.store.s3;

import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Page;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.blob.BlobStore;
import dev.lethe.store.core.format.CorruptRecordException;
import dev.lethe.store.core.format.RecordFormatException;
import dev.lethe.store.core.format.RecordJson;
import dev.lethe.store.core.planner.Plan;
import dev.lethe.store.core.substrate.PlannedStore;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The S3 substrate (docs/design/0130-s3-store-substrate.md): one JSON object per record at {@code
 * <prefix>/records/<ns>/<col>/<id>} (docs/store-format.md), blobs at {@code <prefix>/blobs/<hash>}.
 *
 * <p>No lock: every write is one conditional request planned by the core planners from a read of
 * the key and its ETag: a create is {@code PUT If-None-Match: *}, an update or tombstone {@code PUT
 * If-Match: <etag>}, a purge {@code DELETE If-Match: <etag>}. A write that lost to another writer
 * (412, 409 {@code ConditionalRequestConflict}, or 404 for a key that vanished) is planned again
 * from a new read, and a 5xx is tried again, at most {@value #MAX_ATTEMPTS} requests in all; then
 * the write fails naming the key. Safe with several writers only on a server whose conditional
 * requests are atomic ({@code lethe store qualify-s3}).
 *
 * <p>Listings walk {@code ListObjectsV2} pages one level at a time (namespaces and collections
 * sorted by name, then one collection's ids in key order) and read the records of a page with up
 * to {@value #READERS} GETs at once. Close the store to close its HTTP client.
 *
 * <p>Thread-safe.
 */
public final class S3Store extends PlannedStore implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(S3Store.class);

  /** The most requests one write makes before it fails: re-plans after lost races and retries of 5xx. */
  public static final int MAX_ATTEMPTS = 8;
  /** The most GETs a listing has in flight at once. */
  public static final int READERS = 16;

  private static final String RECORDS = "records/";
  private static final String CONTENT_TYPE = "application/json";

  private final S3Client s3;
  private final S3Location location;
  private final String bucket;
  private final String records;
  private final RecordJson json = new RecordJson();
  private final S3BlobStore blobs;
  private final ExecutorService readers;
  private final S3Ledger ledger;

  S3Store(S3Client s3, S3Location location, int ancestorCap, Clock clock) {
    super(ancestorCap, clock);
    this.s3 = s3;
    this.location = location;
    this.bucket = location.bucket();
    this.records = location.base() + RECORDS;
    AtomicInteger n = new AtomicInteger();
    this.readers = Executors.newFixedThreadPool(READERS, r -> {
      Thread t = new Thread(r, "lethe-s3-read-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    this.blobs = new S3BlobStore(s3, location, clock, readers);
    this.ledger = new S3Ledger(s3, location, clock);
  }

  @Override
  public dev.lethe.store.core.ledger.Ledger ledger() {
    return ledger;
  }

  /**
   * Opens the store named by an {@code s3://bucket/prefix} URI and checks that its bucket can be
   * reached (one {@code HeadBucket}); writes nothing.
   *
   * @param uri {@code s3://bucket[/prefix][?endpoint=…&region=…&path-style=…]}
   * @param settings {@code lethe.store.s3.*} keys ({@link S3Settings}); others are ignored
   * @param environment the process environment, for {@code AWS_REGION}
   * @param ancestorCap ancestors kept per record, at least 1
   * @param clock stamps created, updated, deletedAt and blob times
   * @throws IllegalArgumentException for a malformed URI or setting, or a cap below 1 (nothing is
   *     opened)
   * @throws UncheckedIOException naming the store and the cause when the bucket does not exist,
   *     the endpoint cannot be reached or no credentials are found
   */
  public static S3Store open(String uri, Map<String, String> settings, Map<String, String> environment,
      int ancestorCap, Clock clock) {
    S3Location location = S3Location.parse(uri);
    dev.lethe.store.core.ancestry.Ancestry.checkCap(ancestorCap);
    S3Settings resolved = S3Settings.resolve(location, settings, environment);
    S3Client client = resolved.client();
    try {
      client.headBucket(b -> b.bucket(location.bucket()));
    } catch (SdkException e) {
      client.close();
      throw new UncheckedIOException("Cannot open store " + location, new IOException(S3Errors.describe(e), e));
    }
    LOG.debug("Opened store {} ({})", location, resolved);
    return new S3Store(client, location, ancestorCap, clock);
  }

  /** Returns where the store lives. */
  public S3Location location() {
    return location;
  }

  /** The store's client, for the probe's verdict. */
  S3Client client() {
    return s3;
  }

  /** Returns the object key of {@code key}'s record. */
  public String objectKey(RecordKey key) {
    return records + key.namespace() + "/" + key.collection() + "/" + key.id();
  }

  /** A record as read with the ETag a conditional write of it must name; empty record = absent. */
  private record Stored(Optional<Record> record, String etag) {}

  @Override
  protected <R> R apply(RecordKey key, Planner<R> planner) {
    Plan.Write<R> attempted = null;
    for (int attempt = 1; ; attempt++) {
      Stored stored;
      try {
        stored = fetch(key);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot write " + key + " in " + location, e);
      }
      if (attempted != null && stored.record().isPresent() && stored.record().get().equals(attempted.record())) {
        // the previous attempt's answer was lost (a 5xx after the write landed): it is written
        return attempted.result();
      }
      Plan<R> plan = planner.plan(stored.record());
      SdkException failure;
      try {
        if (plan instanceof Plan.Write<R> w) {
          attempted = w;
          PutObjectRequest.Builder put = PutObjectRequest.builder().bucket(bucket).key(objectKey(key))
              .contentType(CONTENT_TYPE);
          put = stored.record().isPresent() ? put.ifMatch(stored.etag()) : put.ifNoneMatch("*");
          s3.putObject(put.build(), RequestBody.fromBytes(json.encode(w.record())));
        } else if (plan instanceof Plan.Remove<R> r) {
          if (r.logged() != null) {
            ledger.appendPurged(r.logged()); // before the removal (docs/design/0151-purge-log.md)
          }
          s3.deleteObject(DeleteObjectRequest.builder().bucket(bucket).key(objectKey(key))
              .ifMatch(stored.etag()).build());
        }
        return plan.result();
      } catch (SdkException e) {
        failure = e;
      }
      boolean race = S3Errors.lostRace(failure);
      if (!race && !S3Errors.transientFailure(failure)) {
        throw new UncheckedIOException("Cannot write " + key + " in " + location,
            new IOException(S3Errors.describe(failure), failure));
      }
      if (attempt == MAX_ATTEMPTS) {
        throw new UncheckedIOException("Cannot write " + key + " in " + location, new IOException(
            MAX_ATTEMPTS + " attempts failed, the last with " + S3Errors.describe(failure)
                + (race ? " (other writers kept changing the key)" : ""), failure));
      }
      LOG.debug("Write of {} {} (attempt {}): {}", key, race ? "lost a race" : "failed", attempt,
          S3Errors.describe(failure));
      if (!race) {
        pause(attempt);
      }
    }
  }

  /** Waits before trying a request again after a server failure: jittered, growing, at most 0.5 s. */
  private static void pause(int attempt) {
    long ms = ThreadLocalRandom.current().nextLong(5, Math.min(500, 10L << attempt));
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(new InterruptedIOException("interrupted between attempts"));
    }
  }

  private Stored fetch(RecordKey key) throws IOException {
    String objectKey = objectKey(key);
    ResponseBytes<GetObjectResponse> got;
    try {
      got = s3.getObjectAsBytes(b -> b.bucket(bucket).key(objectKey));
    } catch (SdkException e) {
      if (S3Errors.noSuchKey(e)) {
        return new Stored(Optional.empty(), null);
      }
      throw new IOException("Cannot read " + objectKey + ": " + S3Errors.describe(e), e);
    }
    Record r;
    try {
      r = json.decode(got.asByteArrayUnsafe());
    } catch (RecordFormatException e) {
      throw new CorruptRecordException(locationOf(key), e);
    }
    if (!r.key().equals(key)) {
      throw new CorruptRecordException(locationOf(key),
          new RecordFormatException("the object holds key " + r.key() + ", not " + key));
    }
    return new Stored(Optional.of(r), got.response().eTag());
  }

  @Override
  protected String locationOf(RecordKey key) {
    return S3Location.SCHEME + bucket + "/" + objectKey(key);
  }

  @Override
  protected Optional<Record> read(RecordKey key) throws IOException {
    return fetch(key).record();
  }

  @Override
  protected List<Record> scan(KeyPrefix prefix, RecordKey after, int limit, long maxBytes, boolean liveOnly)
      throws IOException {
    List<Record> out = new ArrayList<>();
    long[] total = {0};
    try {
      for (String ns : prefix.namespace() != null ? List.of(prefix.namespace()) : children(records)) {
        if (after != null && ns.compareTo(after.namespace()) < 0) {
          continue;
        }
        String nsDir = records + ns + "/";
        for (String col : prefix.collection() != null ? List.of(prefix.collection()) : children(nsDir)) {
          if (after != null && ns.equals(after.namespace()) && col.compareTo(after.collection()) < 0) {
            continue;
          }
          RecordKey from = after != null && ns.equals(after.namespace()) && col.equals(after.collection())
              ? after : null;
          if (scanCollection(ns, col, from, limit, maxBytes, liveOnly, out, total)) {
            return out;
          }
        }
      }
      return out;
    } catch (SdkException e) {
      throw new IOException("Cannot list " + prefix + " in " + location + ": " + S3Errors.describe(e), e);
    }
  }

  /** Scans one collection's ids after {@code from}; returns whether the page is full. */
  private boolean scanCollection(String ns, String col, RecordKey from, int limit, long maxBytes, boolean liveOnly,
      List<Record> out, long[] total) throws IOException {
    String dir = records + ns + "/" + col + "/";
    ListObjectsV2Request.Builder req = ListObjectsV2Request.builder().bucket(bucket).prefix(dir).delimiter("/")
        .maxKeys(Math.min(1000, Math.max(limit, 2 * READERS)));
    if (from != null) {
      req.startAfter(dir + from.id());
    }
    for (ListObjectsV2Response page : s3.listObjectsV2Paginator(req.build())) {
      List<RecordKey> keys = new ArrayList<>();
      for (S3Object o : page.contents()) {
        String id = o.key().substring(dir.length());
        if (RecordKey.isValidPart(id)) {
          keys.add(new RecordKey(ns, col, id));
        }
      }
      // read READERS records at once, keep them in key order, stop as soon as the page is full
      for (int i = 0; i < keys.size(); i += READERS) {
        List<RecordKey> chunk = keys.subList(i, Math.min(keys.size(), i + READERS));
        for (Optional<Record> r : readAll(chunk)) {
          // a key purged between listing and reading is simply gone
          if (r.isPresent() && !(liveOnly && r.get().isTombstone())) {
            out.add(r.get());
            total[0] += Page.sizeOf(r.get());
            if (out.size() == limit || total[0] >= maxBytes) {
              return true;
            }
          }
        }
      }
    }
    return false;
  }

  private List<Optional<Record>> readAll(List<RecordKey> keys) throws IOException {
    if (keys.size() == 1) {
      return List.of(read(keys.get(0)));
    }
    List<Future<Optional<Record>>> pending = new ArrayList<>(keys.size());
    for (RecordKey k : keys) {
      pending.add(readers.submit(() -> read(k)));
    }
    List<Optional<Record>> out = new ArrayList<>(keys.size());
    for (Future<Optional<Record>> f : pending) {
      try {
        out.add(f.get());
      } catch (ExecutionException e) {
        pending.forEach(p -> p.cancel(true));
        Throwable c = e.getCause();
        if (c instanceof IOException io) {
          throw io;
        }
        if (c instanceof RuntimeException re) {
          throw re;
        }
        throw new IOException(c);
      } catch (InterruptedException e) {
        pending.forEach(p -> p.cancel(true));
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while reading records");
      }
    }
    return out;
  }

  /** Returns the names under {@code dir} (one level, valid key parts only), sorted. */
  private List<String> children(String dir) {
    List<String> out = new ArrayList<>();
    ListObjectsV2Request req = ListObjectsV2Request.builder().bucket(bucket).prefix(dir).delimiter("/").build();
    for (ListObjectsV2Response page : s3.listObjectsV2Paginator(req)) {
      for (CommonPrefix p : page.commonPrefixes()) {
        String name = p.prefix().substring(dir.length(), p.prefix().length() - 1);
        if (RecordKey.isValidPart(name)) {
          out.add(name);
        }
      }
    }
    // S3 lists in byte order of the whole object key, where "a-b/" comes before "a/": sort the names
    Collections.sort(out);
    return out;
  }

  @Override
  public BlobStore blobs() {
    return blobs;
  }

  /** Closes the HTTP client and the listing readers. */
  @Override
  public void close() {
    readers.shutdownNow();
    s3.close();
  }

  @Override
  public String toString() {
    return location.toString();
  }
}
