package dev.lethe.store.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.format.CorruptRecordException;
import dev.lethe.store.core.Deleted;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.s3.testing.S3TestServer;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/**
 * The seed's purge-versus-create race through two S3 stores on one prefix: one purges a tombstone
 * while the other recreates the key over it. A linearizable server lets exactly one win; the
 * outcome on S3Mock, which is not atomic under races, is counted and printed, never assumed.
 */
class S3PurgeVersusCreateTest {

  private static final S3TestServer S3 = S3TestServer.get();
  private static final int ROUNDS = 10;

  @Test
  void purgeRacingARecreationIsCountedRoundByRound() throws Exception {
    // a bucket of its own: a shared bucket's index, rewritten on every PUT, held a racing GET past the
    // client's read timeout (S3TestServer.freshBucketUri)
    String uri = S3.freshBucketUri();
    int purgeWon = 0;
    int createWon = 0;
    int violations = 0;
    int serverFaults = 0;
    try (S3Store purger = S3Store.open(uri, S3.settings(), Map.of(), 32, Clock.systemUTC());
        S3Store creator = S3Store.open(uri, S3.settings(), Map.of(), 32, Clock.systemUTC())) {
      for (int round = 0; round < ROUNDS; round++) {
        RecordKey key = new RecordKey("ns", "race", "r" + round);
        Record live = ((Committed) creator.put(draft(key, "v1"), Optional.empty())).record();
        Record tomb = ((Deleted) creator.delete(key, Optional.of(live.revision()))).tombstone().orElseThrow();
        CountDownLatch go = new CountDownLatch(1);
        CompletableFuture<?> purge = CompletableFuture.supplyAsync(() -> {
          await(go);
          return purger.purge(key, Optional.of(tomb.revision()));
        });
        CompletableFuture<PutResult> create = CompletableFuture.supplyAsync(() -> {
          await(go);
          return creator.put(draft(key, "v2"), Optional.empty());
        });
        go.countDown();
        PutResult c;
        Optional<Record> now;
        try {
          purge.get();
          c = create.get();
          now = creator.getRaw(key);
        } catch (ExecutionException | CorruptRecordException | UncheckedIOException e) {
          // S3Mock's own faults under this race: a torn read (an object served while it is written,
          // CorruptRecordException) or a request it never answers (read timeout). Counted, not hidden;
          // they are the server's, which the S3 store cannot be more atomic than (design 0130)
          Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
          assertThat(cause).as("round %d", round).isInstanceOfAny(CorruptRecordException.class, UncheckedIOException.class);
          serverFaults++;
          continue;
        }
        // the store plans a recreation again after any lost race, so it always commits: counter 1
        // when the purge came first, the tombstone's counter + 1 when the recreation did
        assertThat(c).as("round %d", round).isInstanceOf(Committed.class);
        Record written = ((Committed) c).record();
        if (now.isEmpty()) {
          violations++; // a committed recreation removed by a purge of the tombstone it replaced
        } else {
          assertThat(now.get()).as("round %d", round).isEqualTo(written);
          if (written.revision().counter() == 1) {
            purgeWon++;
          } else {
            createWon++;
          }
        }
      }
    }
    System.out.println("purge-versus-create through the S3 store on S3Mock: " + ROUNDS + " rounds, purge first "
        + purgeWon + ", recreation first " + createWon + ", violations " + violations + " of " + ROUNDS
        + ", rounds lost to S3Mock faults " + serverFaults);
    // the race ran: most rounds reached an outcome
    assertThat(purgeWon + createWon + violations).isGreaterThanOrEqualTo(ROUNDS / 2);
  }

  private static Record draft(RecordKey key, String text) {
    return Record.draft(key, Kind.DOCUMENT, Body.Inline.text(text), Meta.byAuthor("alice"));
  }

  private static void await(CountDownLatch go) {
    try {
      go.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
