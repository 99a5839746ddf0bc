package dev.lethe.store.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.conformance.StoreConformance;
import dev.lethe.store.core.testing.MutableClock;
import dev.lethe.store.s3.testing.S3TestServer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import software.amazon.awssdk.core.sync.RequestBody;

/** The conformance suite on the S3 store against S3Mock, at the default cap and at cap 3; a bucket per store. */
class S3StoreConformanceTest {

  private static final S3TestServer S3 = S3TestServer.get();

  static S3Store open(int cap, MutableClock clock) {
    return S3Store.open(S3.freshBucketUri(), S3.settings(), Map.of(), cap, clock);
  }

  /** Rewrites a record object behind the store's back, as damage or a hand edit would. */
  static void tamper(Store s, RecordKey k, UnaryOperator<String> edit) {
    S3Store store = (S3Store) s;
    String key = store.objectKey(k);
    String text = S3.client().getObjectAsBytes(b -> b.bucket(store.location().bucket()).key(key))
        .asString(StandardCharsets.UTF_8);
    String edited = edit.apply(text);
    S3.client().putObject(b -> b.bucket(store.location().bucket()).key(key), RequestBody.fromString(edited));
    assertThat(S3.client().getObjectAsBytes(b -> b.bucket(store.location().bucket()).key(key))
        .asString(StandardCharsets.UTF_8)).as("the object of %s, rewritten", k).isEqualTo(edited);
  }

  abstract static class OnS3 extends StoreConformance {
    OnS3(int cap) {
      super(cap);
    }

    @Override
    protected Store open(int ancestorCap, MutableClock clock) {
      return S3StoreConformanceTest.open(ancestorCap, clock);
    }

    @Override
    protected boolean canTamper() {
      return true;
    }

    /**
     * S3Mock left a GET or PUT unanswered past the client's 60 s read timeout in every run of the
     * seeded gc oracle (three writers and a gc looping on one bucket); not atomic under races
     * either, it cannot judge that case. The deterministic gc race cases still run here.
     */
    @Override
    protected boolean serverAnswersConcurrentGc() {
      return false;
    }

    @Override
    protected void tamper(Store s, RecordKey k, UnaryOperator<String> edit) {
      S3StoreConformanceTest.tamper(s, k, edit);
    }

    @AfterEach
    void closeStore() {
      ((S3Store) store).close();
    }
  }

  @Nested
  class AtCap32 extends OnS3 {
    AtCap32() {
      super(32);
    }
  }

  @Nested
  class AtCap3 extends OnS3 {
    AtCap3() {
      super(3);
    }
  }
}
