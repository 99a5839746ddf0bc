package dev.lethe.store.remote;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Ends an HTTP exchange whose answer has not arrived whole by its deadline
 * (docs/design/0416-an-answer-that-stalls.md). The JDK client's request timeout covers only the
 * wait for the answer's headers: a server that sends headers and then stalls mid-body held the
 * caller forever. Each exchange registers here; a watchdog thread interrupts the caller of one past
 * its deadline, which makes the blocking {@code send} return. Polling a map costs a request nothing
 * beyond a map insert and removal, where a scheduled task per request would wake a scheduler thread
 * (docs/design/0116-store-request-overhead.md counts those context switches). The watchdog is a
 * daemon thread that ends after {@value #IDLE_EXIT_MS} ms without exchanges. Thread-safe.
 */
final class AnswerDeadline {
  private static final long TICK_MS = 250;
  private static final long IDLE_EXIT_MS = 30_000;

  private final ConcurrentHashMap<Call, Boolean> inFlight = new ConcurrentHashMap<>();
  private Thread watchdog; // guarded by this

  /** One exchange of the calling thread; close it when the exchange has ended, however it ended. */
  final class Call implements AutoCloseable {
    private final Thread caller = Thread.currentThread();
    private final long deadlineNanos;
    private int state; // 0 running, 1 ended, 2 expired (caller interrupted); guarded by this Call

    private Call(Duration timeout) {
      this.deadlineNanos = System.nanoTime() + timeout.toNanos();
    }

    /** Whether the deadline passed before the exchange ended (the caller was interrupted for it). */
    synchronized boolean expired() {
      return state == 2;
    }

    private synchronized void expireIfDue(long now) {
      if (state == 0 && now - deadlineNanos >= 0) {
        state = 2;
        caller.interrupt();
      }
    }

    /** Ends the exchange; an interrupt this deadline sent and nothing consumed is cleared. */
    @Override
    public void close() {
      synchronized (this) {
        if (state == 0) {
          state = 1;
        } else if (state == 2) {
          Thread.interrupted();
        }
      }
      inFlight.remove(this);
    }
  }

  /** Starts the calling thread's exchange, due within {@code timeout}. */
  Call start(Duration timeout) {
    Call call = new Call(timeout);
    inFlight.put(call, Boolean.TRUE);
    ensureWatchdog();
    return call;
  }

  private synchronized void ensureWatchdog() {
    if (watchdog == null) {
      watchdog = new Thread(this::watch, "lethe-store-http-deadline");
      watchdog.setDaemon(true);
      watchdog.start();
    }
  }

  private void watch() {
    long idleSince = System.nanoTime();
    while (true) {
      try {
        Thread.sleep(TICK_MS);
      } catch (InterruptedException e) {
        synchronized (this) {
          watchdog = null;
        }
        return;
      }
      long now = System.nanoTime();
      for (Call call : inFlight.keySet()) {
        call.expireIfDue(now);
      }
      if (!inFlight.isEmpty()) {
        idleSince = now;
      } else if (now - idleSince > IDLE_EXIT_MS * 1_000_000) {
        synchronized (this) {
          // a start() that registered meanwhile either sees this thread (non-empty map: go on) or
          // finds the field cleared and starts a new watchdog
          if (inFlight.isEmpty()) {
            watchdog = null;
            return;
          }
        }
      }
    }
  }
}
