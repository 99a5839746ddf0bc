package dev.lethe.store.soak;

import java.util.ArrayList;
import java.util.List;

/** The calls of a run, appended by every client thread; read once the clients have stopped. */
public final class History {
  private final List<Event> events = new ArrayList<>();

  /** Appends one event. */
  public synchronized void add(Event e) {
    events.add(e);
  }

  /** A copy of every event so far, in the order they were added. */
  public synchronized List<Event> events() {
    return List.copyOf(events);
  }
}
