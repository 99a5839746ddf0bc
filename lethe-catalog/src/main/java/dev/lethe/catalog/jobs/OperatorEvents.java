package dev.lethe.catalog.jobs;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands an {@link OperatorEvent} to the listener (docs/design/0447-operator-events.md). The services
 * call it after their transaction returned, and only when the action changed something; a listener
 * that throws is logged and ignored, as for purge events: the action already happened.
 */
public final class OperatorEvents {
  private static final Logger LOG = LoggerFactory.getLogger(OperatorEvents.class);

  private OperatorEvents() {}

  /** Delivers the event; never throws for the listener. */
  public static void deliver(PurgeEventListener listener, OperatorEvent event) {
    try {
      listener.onOperatorEvent(event);
    } catch (RuntimeException e) {
      LOG.warn("Operator event listener failed on {}", event.getClass().getSimpleName(), e);
    }
  }
}
