package dev.lethe.catalog.purge;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DeletePoolTest {
  @Test
  void aFullPoolRunsTheNextBatchOnTheCallerAndNeverGrowsTheQueue() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch running = new CountDownLatch(1);
    try (DeletePool pool = new DeletePool(1, 1)) {
      Future<String> first = pool.submit(() -> {
        running.countDown();
        release.await(10, TimeUnit.SECONDS);
        return Thread.currentThread().getName();
      });
      running.await(10, TimeUnit.SECONDS);
      Future<String> queued = pool.submit(() -> Thread.currentThread().getName());
      assertThat(pool.queued()).isEqualTo(1);

      Future<String> third = pool.submit(() -> Thread.currentThread().getName());

      assertThat(third.isDone()).as("ran inline before submit returned").isTrue();
      assertThat(third.get()).isEqualTo(Thread.currentThread().getName());
      assertThat(pool.queued()).isEqualTo(1);
      release.countDown();
      assertThat(first.get()).startsWith("lethe-purge-delete-");
      assertThat(queued.get()).startsWith("lethe-purge-delete-");
    }
  }
}
