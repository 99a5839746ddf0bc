package dev.lethe.server;

import dev.lethe.catalog.softdelete.SoftDeleteSettings;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.config.SoftDeleteConfig;
import dev.lethe.store.jdbc.JdbcUrls;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The lines a started server logs: where it answers, and one summary of what it serves. */
final class StartupLines {
  private static final Logger LOG = LoggerFactory.getLogger(LetheServer.class);

  private StartupLines() {}

  static void log(ServerConfig config, ServerComponents components, LetheServer server) {
    if (server.grpcStoreUri() != null) {
      LOG.info("Lethe Store over gRPC at {}", server.grpcStoreUri());
    }
    LOG.info("Lethe Iceberg REST catalog at {} (warehouse={})", server.icebergUri(), LetheServer.DEFAULT_CATALOG);
    LOG.info("Lethe Store at {} (store={}, ancestor cap {})", server.storeUri(), components.storeSettings.redactedUri(),
        components.storeSettings.ancestorCap());
    if (components.store instanceof dev.lethe.store.s3.S3Store s3) { // docs/design/0131-qualify-s3-probe.md
      LOG.info(dev.lethe.store.s3.S3Qualify.lastVerdict(s3));
    }
    // one line that says what this process serves, for whoever reads the log after an incident
    // (docs/design/0433-observability.md); no credential of the URLs is printed
    SoftDeleteSettings softDelete = SoftDeleteConfig.settings(config.properties());
    LOG.info("Lethe started: database={} warehouse={} soft-delete={} auth={} store={} port={}",
        JdbcUrls.redact(config.effectiveJdbcUrl()), components.mainWarehouse(),
        softDelete.enabled() ? "on (retention " + Duration.ofMillis(softDelete.retentionMs()) + ")" : "off",
        config.authFile() != null ? "on (" + config.authFile() + ")" : "off",
        components.storeSettings.redactedUri(), server.port());
  }
}
