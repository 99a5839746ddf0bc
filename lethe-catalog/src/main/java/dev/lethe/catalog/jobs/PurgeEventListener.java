package dev.lethe.catalog.jobs;

/**
 * Receives {@link PurgeEvent}s (docs/design/0201-cleanup-jobs.md §9). Called on the thread that caused the event
 * (the request thread for {@link PurgeEvent.DropAccepted}, a worker thread otherwise); an exception
 * thrown by a listener is logged and ignored. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface PurgeEventListener {
  /** Handles one event. */
  void onEvent(PurgeEvent event);
}
