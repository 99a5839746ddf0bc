package dev.lethe.catalog.jobs;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Logs every purge event at INFO (failures at WARN); never logs FileIO properties. */
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
}
