package dev.lethe.catalog.jobs;

/**
 * Receives {@link PurgeEvent}s (docs/design/0201-cleanup-jobs.md §9) and {@link OperatorEvent}s
 * (docs/design/0447-operator-events.md). Called on the thread that caused the event (the request
 * thread for {@link PurgeEvent.DropAccepted} and every operator event, a worker thread otherwise),
 * an operator event only after its action committed; an exception thrown by a listener is logged and
 * ignored. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface PurgeEventListener {
  /** Handles one purge event. */
  void onEvent(PurgeEvent event);

  /** Handles one operator event; ignores it unless overridden, so a lambda listener of purge events stays one. */
  default void onOperatorEvent(OperatorEvent event) {}
}
