package dev.lethe.catalog.jobs;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Work that the job workers run between jobs every so often, or at once after its {@link
 * Task#wakeUp}: the soft deletions' expiry (docs/design/0210-catalog-drop-and-jobs-layout.md
 * "Periodic tasks"). A task runs on one thread at a time; a wake-up during a run makes one more run
 * right after it, and wake-ups before a run count once. The threads that run the tasks call {@link
 * #runDue} and wait at most {@link #nanosUntilDue} before calling it again; {@code wakeThreads}
 * ends that wait. Where there are no job workers, {@link #onOwnThread} runs them on one thread.
 */
public final class PeriodicTasks implements AutoCloseable {
  private final Runnable wakeThreads;
  private final List<Task> tasks = new CopyOnWriteArrayList<>();
  private final String ownThreadName; // null when the caller's threads run the tasks
  private final Semaphore ownWake = new Semaphore(0);
  private Thread ownThread; // started with the first task; guarded by this
  private volatile boolean open = true;

  /**
   * Tasks run by the caller's threads (the job workers).
   *
   * @param wakeThreads makes a thread that runs these tasks stop waiting (e.g. releases the
   *     workers' semaphore); must not block
   */
  public PeriodicTasks(Runnable wakeThreads) {
    this.wakeThreads = wakeThreads;
    this.ownThreadName = null;
  }

  private PeriodicTasks(String ownThreadName) {
    this.wakeThreads = ownWake::release;
    this.ownThreadName = ownThreadName;
  }

  /**
   * Tasks run by one daemon thread of their own, started with the first task and stopped by {@link
   * #close()}: for a process without job workers.
   */
  public static PeriodicTasks onOwnThread(String threadName) {
    return new PeriodicTasks(threadName);
  }

  private void ownLoop() {
    while (open) {
      runDue();
      try {
        long waitNanos = nanosUntilDue();
        if (waitNanos > 0) {
          ownWake.tryAcquire(waitNanos == Long.MAX_VALUE ? Long.MAX_VALUE : waitNanos, TimeUnit.NANOSECONDS);
          ownWake.drainPermits();
        }
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Stops the own thread, if any, after the run in flight (waited for up to 30 s); the caller's threads are its own. */
  @Override
  public void close() {
    open = false;
    Thread t;
    synchronized (this) {
      t = ownThread;
    }
    if (t == null) {
      return;
    }
    ownWake.release();
    try {
      t.join(30_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (t.isAlive()) {
      t.interrupt();
    }
  }

  /** One registered task. */
  public final class Task implements AutoCloseable {
    private final long intervalNanos;
    private final Runnable body;
    private final ReentrantLock running = new ReentrantLock();
    private volatile long dueAt = System.nanoTime(); // the first run is at once
    private volatile boolean woken;

    private Task(long intervalMs, Runnable body) {
      this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMs);
      this.body = body;
    }

    /** Runs the task now instead of at the end of its interval. */
    public void wakeUp() {
      woken = true;
      wakeThreads.run();
    }

    private boolean due(long now) {
      return woken || now - dueAt >= 0;
    }

    private void runIfDue() {
      if (!due(System.nanoTime()) || !running.tryLock()) {
        return;
      }
      try {
        woken = false;
        body.run();
      } finally {
        dueAt = System.nanoTime() + intervalNanos;
        running.unlock();
      }
    }

    /** Stops running the task; a run in flight finishes first (waited for up to 30 s). */
    @Override
    public void close() {
      tasks.remove(this);
      try {
        if (running.tryLock(30, TimeUnit.SECONDS)) {
          running.unlock();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Registers {@code body} to run every {@code intervalMs}, the first time at once.
   *
   * @param body must handle its own failures (a runtime exception is passed to the thread's caller)
   */
  public Task every(long intervalMs, Runnable body) {
    Task task = new Task(intervalMs, body);
    tasks.add(task);
    if (ownThreadName != null) {
      synchronized (this) {
        if (ownThread == null && open) {
          ownThread = new Thread(this::ownLoop, ownThreadName);
          ownThread.setDaemon(true);
          ownThread.start();
        }
      }
    }
    wakeThreads.run();
    return task;
  }

  /** Whether any task is registered. */
  public boolean any() {
    return !tasks.isEmpty();
  }

  /** Runs every task that is due and not running on another thread, on the calling thread. */
  public void runDue() {
    for (Task task : tasks) {
      task.runIfDue();
    }
  }

  /**
   * How long until the next task is due: 0 if one is due now, {@link Long#MAX_VALUE} if there is
   * none. A task running on another thread is left to that thread.
   */
  public long nanosUntilDue() {
    long now = System.nanoTime();
    long min = Long.MAX_VALUE;
    for (Task task : tasks) {
      if (task.running.isLocked()) {
        continue;
      }
      if (task.due(now)) {
        return 0;
      }
      min = Math.min(min, task.dueAt - now);
    }
    return min;
  }
}
