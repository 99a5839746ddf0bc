package dev.lethe.server.softdelete;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.server.LetheServer;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The soft-delete gauges of {@code /metrics} count what {@code lethe_entity_deletion} holds
 * (docs/design/0433-observability.md): retained, expiring within 24 h, expired and not yet claimed.
 */
class SoftDeleteMetricsRoutesTest {
  @TempDir Path dir;
  private LetheServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void gaugesCountRetainedExpiringAndExpiredRecords() throws Exception {
    // a week of retention; the expiry timer ticks once an hour, so it claims nothing during the test
    ServerConfig config = new ServerConfig("127.0.0.1", 0, dir, null, null, null, 10, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, Map.of(ConfigKeys.SOFT_DELETE_ENABLED, "true",
            ConfigKeys.SOFT_DELETE_RETENTION_MS, String.valueOf(Duration.ofDays(7).toMillis()),
            ConfigKeys.SOFT_DELETE_EXPIRY_INTERVAL_MS, String.valueOf(Duration.ofHours(1).toMillis()),
            ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0"));
    server = LetheServer.start(config);
    ServerHttp http = new ServerHttp(server);
    http.send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}", Map.of());
    for (String t : new String[] {"week", "hour", "past"}) {
      http.createTable("db", t, Map.of());
      assertThat(http.send("DELETE", "/iceberg/v1/main/namespaces/db/tables/" + t, null, Map.of()).statusCode())
          .isEqualTo(204);
    }
    try (Connection c = DriverManager.getConnection(config.effectiveJdbcUrl()); Statement s = c.createStatement()) {
      long now = System.currentTimeMillis();
      s.executeUpdate("UPDATE lethe_entity_deletion SET retention_expires_at = " + (now + Duration.ofHours(1).toMillis())
          + " WHERE entity_id = (SELECT table_id FROM lethe_table WHERE name = 'hour')");
      s.executeUpdate("UPDATE lethe_entity_deletion SET retention_expires_at = " + (now - 1000) + " WHERE entity_id = (SELECT table_id FROM lethe_table WHERE name = 'past')");
    }

    String body = http.send("GET", "/metrics", null, Map.of()).body();

    assertThat(body).contains("lethe_softdelete_retained 3.0", "lethe_softdelete_expiring 1.0", "lethe_softdelete_expired 1.0");
  }
}
