package dev.lethe.store.core.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A clock tests move by hand. Thread-safe. */
public final class MutableClock extends Clock {

  private final AtomicLong millis;
  private final java.util.List<java.util.function.LongConsumer> listeners =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  /** @param startMs the initial time, ms since the epoch */
  public MutableClock(long startMs) {
    this.millis = new AtomicLong(startMs);
  }

  /** A clock at 2026-01-01T00:00:00Z. */
  public static MutableClock at2026() {
    return new MutableClock(Instant.parse("2026-01-01T00:00:00Z").toEpochMilli());
  }

  /** Moves the clock forward (or back, for a negative duration). */
  public void advance(Duration d) {
    long now = millis.addAndGet(d.toMillis());
    listeners.forEach(l -> l.accept(now));
  }

  /**
   * Calls {@code listener} with the time now and after every move: how a store in another process
   * (a server reading its clock from a file) follows this clock.
   *
   * @return this clock
   */
  public MutableClock onChange(java.util.function.LongConsumer listener) {
    listeners.add(listener);
    listener.accept(millis.get());
    return this;
  }

  @Override
  public long millis() {
    return millis.get();
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis.get());
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
