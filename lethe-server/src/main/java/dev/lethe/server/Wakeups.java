package dev.lethe.server;

/**
 * The two wake-ups between the purge executor and the soft-deletion expiry timer, created before
 * either so neither needs the other to exist first (docs/design/0215-one-http-edge-and-composition-root.md
 * §3): a finished cleanup job lets the timer finalize its deletion record at once, and an expired
 * record (or a synchronous purge that failed an attempt) lets the workers pick its job at once. Until a side is registered, waking it does
 * nothing (the side polls anyway).
 */
final class Wakeups {
  private volatile Runnable expiry = () -> { };
  private volatile Runnable purge = () -> { };

  /** Registers how to wake the expiry timer. */
  void expiryWakesBy(Runnable wakeUp) {
    this.expiry = wakeUp;
  }

  /** Registers how to wake the purge executor. */
  void purgeWakesBy(Runnable wakeUp) {
    this.purge = wakeUp;
  }

  /** Wakes the expiry timer (a cleanup job finished). */
  void wakeExpiry() {
    expiry.run();
  }

  /** Wakes the purge workers (an expired record enqueued its job, or a synchronous purge left its job to them). */
  void wakePurge() {
    purge.run();
  }
}
