package dev.lethe.catalog.jobs;

import dev.lethe.catalog.entity.NamespaceNames;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs every purge event at INFO (failures at WARN) and every operator event as one INFO line
 * starting {@code Operator NAME} (the audit trail on call reads; docs/design/0447-operator-events.md);
 * never logs FileIO properties.
 */
public final class LoggingPurgeEventListener implements PurgeEventListener {
  private static final Logger LOG = LoggerFactory.getLogger(LoggingPurgeEventListener.class);

  @Override
  public void onEvent(PurgeEvent event) {
    if (event instanceof PurgeEvent.DropAccepted e) {
      LOG.info("Drop accepted, purge enqueued: {} by {}", e.job(), e.job().createdBy());
    } else if (event instanceof PurgeEvent.PurgeStarted e) {
      LOG.info("Purge started: {}", e.job());
    } else if (event instanceof PurgeEvent.PurgeCompleted e) {
      LOG.info("Purge completed: {}, {} files deleted{}", e.job(), e.filesDeleted(),
          e.receipt() == null ? "" : "; " + e.receipt().summary());
    } else if (event instanceof PurgeEvent.PurgeFailed e) {
      LOG.warn("Purge failed: {}: {}{}", e.job(), e.reason(), e.receipt() == null ? "" : "; " + e.receipt().summary());
    }
  }

  @Override
  public void onOperatorEvent(OperatorEvent event) {
    LOG.info("Operator {} {}", event.by(), line(event));
  }

  /** What was done to which object or job, and why: the line after "Operator NAME". */
  static String line(OperatorEvent event) {
    if (event instanceof OperatorEvent.JobRetried e) {
      return "retried " + e.job();
    } else if (event instanceof OperatorEvent.JobRunNow e) {
      return "ran now " + e.job();
    } else if (event instanceof OperatorEvent.JobAbandoned e) {
      return "abandoned " + e.job() + ": " + e.reason();
    } else if (event instanceof OperatorEvent.JobRescued e) {
      return "rescued " + e.job() + ", table back" + (e.reason() == null ? " (no reason given)" : ": " + e.reason());
    } else if (event instanceof OperatorEvent.HoldPlaced e) {
      return "placed legal hold " + e.hold().holdId() + " on " + object(e.catalog(), e.hold().kind().name(),
          e.hold().namespace(), e.hold().name())
          + (e.hold().expiresAt() == null ? " until released" : " until " + Instant.ofEpochMilli(e.hold().expiresAt()))
          + (e.replaced().isEmpty() ? "" : ", replacing " + e.replaced().stream().map(h -> h.holdId()).toList())
          + (e.runningPurges().isEmpty() ? "" : ", purges running then: " + e.runningPurges())
          + ": " + e.hold().reason();
    } else if (event instanceof OperatorEvent.HoldReleased e) {
      return "released legal hold " + e.hold().holdId() + " on " + object(e.catalog(), e.hold().kind().name(),
          e.hold().namespace(), e.hold().name()) + " (placed by " + e.hold().placedBy() + ": " + e.hold().reason() + ")";
    } else if (event instanceof OperatorEvent.ProtectionSet e) {
      return "protected " + object(e.catalog(), e.protection().kind().name(), e.protection().namespace(),
          e.protection().name()) + (e.protection().reason().isEmpty() ? " (no reason given)" : ": " + e.protection().reason());
    } else if (event instanceof OperatorEvent.ProtectionCleared e) {
      return "cleared the protection on " + object(e.catalog(), e.protection().kind().name(), e.protection().namespace(),
          e.protection().name()) + " (set by " + e.protection().setBy()
          + (e.protection().reason().isEmpty() ? "" : ": " + e.protection().reason()) + ")";
    }
    throw new IllegalArgumentException("Cannot log operator event: unknown kind " + event.getClass().getName());
  }

  /** "table main.db.t", "namespace main.db". */
  private static String object(String catalog, String kind, String namespace, String name) {
    String ns = String.join(".", NamespaceNames.decode(namespace).levels());
    return kind.toLowerCase(java.util.Locale.ROOT) + " " + catalog + "." + ns + (name.isEmpty() ? "" : "." + name);
  }
}
