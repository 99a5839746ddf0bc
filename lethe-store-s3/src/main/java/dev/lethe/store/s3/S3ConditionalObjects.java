package dev.lethe.store.s3;

import dev.lethe.store.s3.qualify.ConditionalObjects;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/** {@link ConditionalObjects} on one bucket, with the requests the S3 store sends. */
final class S3ConditionalObjects implements ConditionalObjects {

  private final S3Client s3;
  private final String bucket;

  S3ConditionalObjects(S3Client s3, String bucket) {
    this.s3 = s3;
    this.bucket = bucket;
  }

  private UncheckedIOException failure(String what, String key, SdkException e) {
    return new UncheckedIOException("Cannot " + what + " " + key + " in bucket " + bucket,
        new IOException(S3Errors.describe(e), e));
  }

  @Override
  public Optional<String> createIfAbsent(String key, byte[] body) {
    try {
      return Optional.of(s3.putObject(b -> b.bucket(bucket).key(key).ifNoneMatch("*"), RequestBody.fromBytes(body)).eTag());
    } catch (SdkException e) {
      if (S3Errors.lostRace(e)) {
        return Optional.empty();
      }
      throw failure("create", key, e);
    }
  }

  @Override
  public Optional<String> replaceIfMatch(String key, String etag, byte[] body) {
    try {
      return Optional.of(s3.putObject(b -> b.bucket(bucket).key(key).ifMatch(etag), RequestBody.fromBytes(body)).eTag());
    } catch (SdkException e) {
      if (S3Errors.lostRace(e)) {
        return Optional.empty();
      }
      throw failure("replace", key, e);
    }
  }

  @Override
  public boolean deleteIfMatch(String key, String etag) {
    try {
      s3.deleteObject(b -> b.bucket(bucket).key(key).ifMatch(etag));
      return true;
    } catch (SdkException e) {
      if (S3Errors.lostRace(e)) {
        return false;
      }
      throw failure("delete", key, e);
    }
  }

  @Override
  public Optional<byte[]> read(String key) {
    try {
      return Optional.of(s3.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray());
    } catch (SdkException e) {
      if (S3Errors.noSuchKey(e)) {
        return Optional.empty();
      }
      throw failure("read", key, e);
    }
  }

  @Override
  public Optional<String> etag(String key) {
    try {
      return Optional.of(s3.headObject(b -> b.bucket(bucket).key(key)).eTag());
    } catch (SdkException e) {
      if (S3Errors.noSuchKey(e)) {
        return Optional.empty();
      }
      throw failure("read", key, e);
    }
  }

  @Override
  public List<String> keys(String prefix) {
    List<String> out = new ArrayList<>();
    try {
      for (S3Object o : s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents()) {
        out.add(o.key());
      }
    } catch (SdkException e) {
      throw failure("list", prefix, e);
    }
    return out;
  }

  @Override
  public void delete(String key) {
    try {
      s3.deleteObject(b -> b.bucket(bucket).key(key));
    } catch (SdkException e) {
      if (!S3Errors.noSuchKey(e)) {
        throw failure("delete", key, e);
      }
    }
  }
}
