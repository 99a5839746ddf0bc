package dev.lethe.catalog.purge;

import dev.lethe.catalog.jobs.AsyncPurgeSettings;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The server-wide file-delete pool shared by every running job (docs/design/0201-cleanup-jobs.md §5): {@code
 * delete-threads} threads, a bounded queue, and caller-runs back-pressure, so when threads and
 * queue are full the submitting worker runs the batch itself and stops pulling new batches until
 * it is done. No batch is ever dropped and the queue never grows past its bound.
 */
public final class DeletePool implements AutoCloseable {
  private final ThreadPoolExecutor executor;

  /**
   * @param threads delete threads, at least 1
   * @param queueCapacity batches waiting beyond the running ones, at least 1
   */
  public DeletePool(int threads, int queueCapacity) {
    AtomicInteger n = new AtomicInteger();
    this.executor = new ThreadPoolExecutor(threads, threads, 0L, TimeUnit.MILLISECONDS,
        new ArrayBlockingQueue<>(queueCapacity),
        r -> {
          Thread t = new Thread(r, "lethe-purge-delete-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        },
        new ThreadPoolExecutor.CallerRunsPolicy());
  }

  /**
   * The pool of the async purge settings: {@code delete-threads} threads and a queue of twice as
   * many batches.
   */
  public static DeletePool of(AsyncPurgeSettings settings) {
    return new DeletePool(settings.deleteThreads(), settings.deleteThreads() * 2);
  }

  /**
   * Submits a batch; runs it on the calling thread when the pool and its queue are full.
   *
   * @return the batch's future (already done when it ran on the caller)
   */
  public <T> Future<T> submit(Callable<T> batch) {
    return executor.submit(batch);
  }

  /**
   * Waits for a batch returned by {@link #submit}.
   *
   * @return the batch's result
   * @throws IllegalStateException if the thread is interrupted (its interrupt flag is set again)
   *     or the batch threw; batches of the purge count failures instead of throwing, so this is a
   *     bug or an {@link Error}
   */
  public static <T> T await(Future<T> batch) {
    try {
      return batch.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while waiting for a delete batch", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("Delete batch failed", e.getCause());
    }
  }

  /** Batches waiting in the queue now (for tests and metrics). */
  public int queued() {
    return executor.getQueue().size();
  }

  @Override
  public void close() {
    executor.shutdownNow();
    try {
      executor.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
