package dev.lethe.store.s3;

import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.blob.BlobInfo;
import dev.lethe.store.core.blob.BlobRef;
import dev.lethe.store.core.blob.BlobStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Blobs of the S3 store at {@code <prefix>/blobs/<hash>}. A blob's stored time is the user
 * metadata {@value #STORED_AT} (ms since the epoch, from the store's clock, not the server's):
 * storing existing content writes the object again with a fresh time, so gc's grace covers the
 * caller's next write. As on the fs store, a put landing between gc's time check and its delete is
 * not excluded; the grace assumes writers finish well within it.
 */
final class S3BlobStore implements BlobStore {

  /** User-metadata name of a blob's stored time. */
  static final String STORED_AT = "lethe-stored-at";

  private final S3Client s3;
  private final S3Location location;
  private final String dir;
  private final Clock clock;
  private final ExecutorService readers;

  S3BlobStore(S3Client s3, S3Location location, Clock clock, ExecutorService readers) {
    this.s3 = s3;
    this.location = location;
    this.dir = location.base() + "blobs/";
    this.clock = clock;
    this.readers = readers;
  }

  private String key(String hash) {
    if (!ContentHash.isValid(hash)) {
      throw new IllegalArgumentException("Invalid blob hash '" + hash + "'");
    }
    return dir + hash;
  }

  private UncheckedIOException failure(String what, SdkException e) {
    return new UncheckedIOException(what + " in " + location, new IOException(S3Errors.describe(e), e));
  }

  @Override
  public BlobRef put(byte[] content) {
    String hash = ContentHash.of(content);
    try {
      // Content-addressed: writing the same bytes again is harmless and refreshes the stored time.
      s3.putObject(b -> b.bucket(location.bucket()).key(key(hash)).contentType("application/octet-stream")
          .metadata(Map.of(STORED_AT, Long.toString(clock.millis()))), RequestBody.fromBytes(content));
      return new BlobRef(hash, content.length);
    } catch (SdkException e) {
      throw failure("Cannot store blob " + hash, e);
    }
  }

  @Override
  public Optional<byte[]> get(String hash) {
    String k = key(hash);
    try {
      return Optional.of(s3.getObjectAsBytes(b -> b.bucket(location.bucket()).key(k)).asByteArray());
    } catch (SdkException e) {
      if (S3Errors.noSuchKey(e)) {
        return Optional.empty();
      }
      throw failure("Cannot read blob " + hash, e);
    }
  }

  @Override
  public boolean contains(String hash) {
    return head(hash).isPresent();
  }

  private Optional<HeadObjectResponse> head(String hash) {
    String k = key(hash);
    try {
      return Optional.of(s3.headObject(b -> b.bucket(location.bucket()).key(k)));
    } catch (SdkException e) {
      if (S3Errors.noSuchKey(e)) {
        return Optional.empty();
      }
      throw failure("Cannot read blob " + hash, e);
    }
  }

  private static long storedAt(HeadObjectResponse h) {
    String t = h.metadata().get(STORED_AT);
    try {
      return t == null ? h.lastModified().toEpochMilli() : Long.parseLong(t);
    } catch (NumberFormatException e) {
      return h.lastModified().toEpochMilli();
    }
  }

  @Override
  public List<BlobInfo> list() {
    List<String> hashes = new ArrayList<>();
    try {
      ListObjectsV2Request req = ListObjectsV2Request.builder().bucket(location.bucket()).prefix(dir).build();
      for (ListObjectsV2Response page : s3.listObjectsV2Paginator(req)) {
        for (S3Object o : page.contents()) {
          String name = o.key().substring(dir.length());
          if (ContentHash.isValid(name)) {
            hashes.add(name);
          }
        }
      }
    } catch (SdkException e) {
      throw failure("Cannot list blobs", e);
    }
    // the stored time is user metadata, which a listing does not return: one HEAD per blob
    List<Future<Optional<HeadObjectResponse>>> heads = new ArrayList<>(hashes.size());
    hashes.forEach(h -> heads.add(readers.submit(() -> head(h))));
    List<BlobInfo> out = new ArrayList<>(hashes.size());
    for (int i = 0; i < hashes.size(); i++) {
      try {
        Optional<HeadObjectResponse> h = heads.get(i).get();
        String hash = hashes.get(i);
        // a blob removed since the listing is simply gone
        h.ifPresent(r -> out.add(new BlobInfo(hash, r.contentLength(), storedAt(r))));
      } catch (ExecutionException e) {
        heads.forEach(f -> f.cancel(true));
        throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
      } catch (InterruptedException e) {
        heads.forEach(f -> f.cancel(true));
        Thread.currentThread().interrupt();
        throw new UncheckedIOException(new java.io.InterruptedIOException("interrupted while listing blobs"));
      }
    }
    return out;
  }

  @Override
  public boolean remove(String hash, long storedAtOrBeforeMs) {
    Optional<HeadObjectResponse> h = head(hash);
    if (h.isEmpty() || storedAt(h.get()) > storedAtOrBeforeMs) {
      return false;
    }
    try {
      s3.deleteObject(b -> b.bucket(location.bucket()).key(key(hash)).ifMatch(h.get().eTag()));
      return true;
    } catch (SdkException e) {
      if (S3Errors.lostRace(e)) {
        return false;
      }
      throw failure("Cannot remove blob " + hash, e);
    }
  }
}
