package dev.lethe.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.server.config.ConfigException;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfig;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A start that fails closes exactly the real components that opened, newest first; a stop closes them all alike. */
class ServerComponentsCloseTest {
  @TempDir Path dir;

  @Test
  void aStartFailingAfterThePurgeExecutorClosesWhatOpenedNewestFirstAndNothingElse() {
    List<AutoCloseable> closed = new ArrayList<>();
    // the soft deletion settings are read after the purge executor opened and before the expiry timer
    ServerConfig config = config(Map.of(ConfigKeys.SOFT_DELETE_RETENTION_MS, "-1"));
    assertThatThrownBy(() -> ServerComponents.open(config, Clock.systemUTC(), new ServerComponents.Opened(closed::add)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(ConfigKeys.SOFT_DELETE_RETENTION_MS);
    assertThat(closed).extracting(c -> c.getClass().getSimpleName()).containsExactly(
        "Readiness", "PurgeWorkerPool", "PurgeJobExecutor", "DeletePool", "IcebergCatalogs", "FsStore", "CatalogDatabase", "JvmGcMetrics");
    // the database really closed: the next start opens the same H2 file
    ServerComponents.open(config(Map.of()), Clock.systemUTC()).close();
  }

  @Test
  void aStopClosesEveryComponentNewestFirstOnce() {
    List<AutoCloseable> closed = new ArrayList<>();
    ServerComponents components = ServerComponents.open(config(Map.of()), Clock.systemUTC(),
        new ServerComponents.Opened(closed::add));
    assertThat(closed).isEmpty();
    components.close();
    components.close();
    assertThat(closed).extracting(c -> c.getClass().getSimpleName()).containsExactly("SoftDeleteExpiry", "Readiness",
        "PurgeWorkerPool", "PurgeJobExecutor", "DeletePool", "IcebergCatalogs", "FsStore", "CatalogDatabase", "JvmGcMetrics");
    assertThat(closed.get(closed.size() - 2)).isSameAs(components.database);
  }

  private ServerConfig config(Map<String, String> properties) {
    return new ServerConfig("127.0.0.1", 0, dir, null, null, null, 10, null, ServerConfig.DEFAULT_MAX_REQUEST_BYTES,
        null, properties);
  }
}
