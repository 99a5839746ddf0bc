package dev.lethe.store.s3;

import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.ledger.DocumentLedger;
import dev.lethe.store.core.ledger.LedgerJson;
import dev.lethe.store.core.ledger.PurgeEntry;
import dev.lethe.store.core.ledger.PurgeLogPage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * An S3 store's ledger (docs/design/0151-purge-log.md "Storage"): the state document at {@code
 * <prefix>ledger/state.json}, replaced with a conditional PUT (If-Match its ETag, or If-None-Match
 * for the first), re-read and re-applied after a lost race; one object per purge-log entry under
 * {@code <prefix>ledger/purge-log/}, named by its purge time (zero-padded ms), this
 * process's append sequence and a random suffix, so a listing is in append order (entries of one
 * ms from one process too) and appends never race.
 */
final class S3Ledger extends DocumentLedger {

  private static final int MAX_ATTEMPTS = 16;
  private static final AtomicLong APPENDS = new AtomicLong();

  private final S3Client s3;
  private final String bucket;
  private final String state;
  private final String log;

  S3Ledger(S3Client s3, S3Location location, Clock clock) {
    super(clock);
    this.s3 = s3;
    this.bucket = location.bucket();
    this.state = location.base() + "ledger/state.json";
    this.log = location.base() + "ledger/purge-log/";
  }

  private Optional<ResponseBytes<GetObjectResponse>> get(String key) {
    try {
      return Optional.of(s3.getObjectAsBytes(b -> b.bucket(bucket).key(key)));
    } catch (NoSuchKeyException e) {
      return Optional.empty();
    } catch (SdkException e) {
      throw failure("read", key, e);
    }
  }

  private UncheckedIOException failure(String what, String key, SdkException e) {
    return new UncheckedIOException("Cannot " + what + " s3://" + bucket + "/" + key,
        new IOException(S3Errors.describe(e), e));
  }

  @Override
  protected String updateState(UnaryOperator<Optional<String>> change) {
    for (int attempt = 1; ; attempt++) {
      Optional<ResponseBytes<GetObjectResponse>> cur = get(state);
      String next = change.apply(cur.map(r -> r.asString(StandardCharsets.UTF_8))).orElseThrow();
      PutObjectRequest.Builder put = PutObjectRequest.builder().bucket(bucket).key(state).contentType("application/json");
      put = cur.isPresent() ? put.ifMatch(cur.get().response().eTag()) : put.ifNoneMatch("*");
      try {
        s3.putObject(put.build(), RequestBody.fromString(next, StandardCharsets.UTF_8));
        return next;
      } catch (SdkException e) {
        if (attempt >= MAX_ATTEMPTS || !S3Errors.lostRace(e)) {
          throw failure("write", state, e);
        }
      }
    }
  }

  @Override
  protected Optional<String> readState() {
    return get(state).map(r -> r.asString(StandardCharsets.UTF_8));
  }

  @Override
  protected void appendLine(String line) {
    String key = log + String.format("%020d-%016x-", LedgerJson.entry(line).purgedAt(), APPENDS.incrementAndGet())
        + UUID.randomUUID();
    try {
      s3.putObject(b -> b.bucket(bucket).key(key).contentType("application/json").ifNoneMatch("*"),
          RequestBody.fromString(line, StandardCharsets.UTF_8));
    } catch (SdkException e) {
      throw failure("append to", key, e);
    }
  }

  private Map<String, String> entries() {
    Map<String, String> out = new LinkedHashMap<>();
    try {
      List<String> keys = new ArrayList<>();
      for (S3Object o : s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(log)).contents()) {
        keys.add(o.key());
      }
      for (String k : keys) {
        get(k).ifPresent(r -> out.put(k, r.asString(StandardCharsets.UTF_8)));
      }
    } catch (SdkException e) {
      throw failure("list", log, e);
    }
    return out;
  }

  /**
   * A keyset page on the entry objects' names, which sort in append order
   * (docs/design/0157-purge-log-pages.md): the cursor is {@code o<name>} of the last object read,
   * so a trim never moves it; only the page's objects are fetched.
   */
  @Override
  public PurgeLogPage purgedPage(KeyPrefix prefix, Optional<String> after, int size) {
    PurgeLogPage.checkSize(size);
    String start = after.map(c -> {
      if (c.length() < 2 || c.charAt(0) != 'o' || c.indexOf('/') >= 0) {
        throw PurgeLogPage.refused();
      }
      return log + c.substring(1);
    }).orElse(null);
    List<PurgeEntry> out = new ArrayList<>();
    String last = start;
    try {
      for (S3Object o : s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(log).startAfter(start)).contents()) {
        if (out.size() == size) {
          return new PurgeLogPage(out, Optional.of("o" + last.substring(log.length())));
        }
        Optional<ResponseBytes<GetObjectResponse>> line = get(o.key());
        if (line.isPresent()) {
          PurgeEntry e = LedgerJson.entry(line.get().asString(StandardCharsets.UTF_8));
          if (prefix.matches(e.key())) {
            out.add(e);
          }
        }
        last = o.key();
      }
    } catch (SdkException e) {
      throw failure("list", log, e);
    }
    return new PurgeLogPage(out, Optional.empty());
  }

  @Override
  protected List<String> readLines() {
    return List.copyOf(entries().values());
  }

  @Override
  protected void rewriteLines(UnaryOperator<List<String>> keep) {
    Map<String, String> all = entries();
    Set<String> kept = new HashSet<>(keep.apply(List.copyOf(all.values())));
    for (Map.Entry<String, String> e : all.entrySet()) {
      if (!kept.contains(e.getValue())) {
        try {
          s3.deleteObject(b -> b.bucket(bucket).key(e.getKey()));
        } catch (SdkException ex) {
          throw failure("delete", e.getKey(), ex);
        }
      }
    }
  }
}
