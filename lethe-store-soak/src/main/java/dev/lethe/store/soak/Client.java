package dev.lethe.store.soak;

import static org.awaitility.Awaitility.await;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.Function;

/**
 * One writer's view of the replicas: a call goes to a random replica and, when it fails with an
 * I/O error (the replica died, or answered 5xx), is sent again unchanged, with the same expected
 * revision, to another one until one answers (docs/design/0145-ha-soak.md "Chaos").
 */
final class Client {
  /** How long one call keeps trying before the writer gives it up. */
  static final Duration RETRY_LIMIT = Duration.ofSeconds(90);

  private final List<RecordingStore> stores;
  private final Random pick;

  Client(List<RecordingStore> stores, long seed) {
    this.stores = List.copyOf(stores);
    this.pick = new Random(seed);
  }

  /** Runs {@code call} on one replica after another until one answers. */
  <T> T call(Function<RecordingStore, T> call) {
    return retry(call, false);
  }

  /** {@link #call}, recorded as the second half of a probe. */
  <T> T probe(Function<RecordingStore, T> call) {
    return retry(call, true);
  }

  private <T> T retry(Function<RecordingStore, T> call, boolean probe) {
    return await("a replica answering").atMost(RETRY_LIMIT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(100))
        .pollInSameThread().ignoreExceptionsInstanceOf(UncheckedIOException.class)
        .until(() -> {
          RecordingStore s = stores.get(pick.nextInt(stores.size()));
          return Optional.ofNullable(call.apply(probe ? s.asProbe() : s));
        }, answer -> true).orElse(null);
  }
}
