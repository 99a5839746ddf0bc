package dev.lethe.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.catalog.jobs.AsyncPurgeSettings;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AsyncPurgeConfigTest {
  @Test
  void defaultsAreTheDesignsDefaults() {
    AsyncPurgeSettings s = AsyncPurgeConfig.settings(Map.of());
    assertThat(s).isEqualTo(new AsyncPurgeSettings(2, 4, 1000, 5000, 300_000, 5, 720, 2000, 300_000));
    assertThat(s.heartbeatIntervalMs()).isEqualTo(100_000);
  }

  @Test
  void everyKeyIsRead() {
    AsyncPurgeSettings s = AsyncPurgeConfig.settings(Map.of(
        "lethe.iceberg-rest.async-purge.worker-threads", "3",
        "lethe.iceberg-rest.async-purge.delete-threads", "5",
        "lethe.iceberg-rest.async-purge.delete-batch-size", "10",
        "lethe.iceberg-rest.async-purge.poll-interval-ms", "100",
        "lethe.iceberg-rest.async-purge.heartbeat-timeout-ms", "900",
        "lethe.iceberg-rest.async-purge.max-attempts", "2",
        "lethe.iceberg-rest.async-purge.retention-hours", "1",
        "lethe.iceberg-rest.async-purge.retry.initial-backoff-ms", "50",
        "lethe.iceberg-rest.async-purge.retry.max-backoff-ms", "800"));
    assertThat(s).isEqualTo(new AsyncPurgeSettings(3, 5, 10, 100, 900, 2, 1, 50, 800));
  }

  @Test
  void invalidValuesFailStartUpNamingTheKey() {
    assertThatThrownBy(() -> ServerConfigLoader.toConfig(Map.of("lethe.iceberg-rest.async-purge.worker-threads", "many")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("lethe.iceberg-rest.async-purge.worker-threads");
    assertThatThrownBy(() -> ServerConfigLoader.toConfig(Map.of("lethe.iceberg-rest.async-purge.max-attempts", "0")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("lethe.iceberg-rest.async-purge.max-attempts");
    assertThatThrownBy(() -> ServerConfigLoader.toConfig(Map.of("lethe.iceberg-rest.async-purge.heartbeat-timeout-ms", "-5")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("heartbeat-timeout-ms");
    assertThatThrownBy(() -> ServerConfigLoader.toConfig(Map.of("lethe.iceberg-rest.async-purge.retry.max-backoff-ms", "-1")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("lethe.iceberg-rest.async-purge.retry.max-backoff-ms");
    assertThatThrownBy(() -> AsyncPurgeConfig.settings(Map.of("lethe.iceberg-rest.async-purge.retry.initial-backoff-ms", "9000",
        "lethe.iceberg-rest.async-purge.retry.max-backoff-ms", "10")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("lethe.iceberg-rest.async-purge.retry.max-backoff-ms");
    assertThatThrownBy(() -> ServerConfigLoader.toConfig(Map.of("lethe.iceberg-rest.async-purge.encryption-key", "c2hvcnQ=")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("lethe.iceberg-rest.async-purge.encryption-key")
        .hasMessageNotContaining("c2hvcnQ=");
  }

  @Test
  void aMisspelledAsyncPurgeKeyInTheConfigFileStopsStartUp(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path file = dir.resolve("lethe.properties");
    java.nio.file.Files.writeString(file, "lethe.iceberg-rest.async-purge.worker-thread=3\n");
    assertThatThrownBy(() -> ServerConfigLoader.load(Map.of(), Map.of(), file))
        .isInstanceOf(ConfigException.class).hasMessageContaining("lethe.iceberg-rest.async-purge.worker-thread");
    java.nio.file.Files.writeString(file, "lethe.iceberg-rest.async-purge.worker-threads=3\n");
    assertThat(AsyncPurgeConfig.settings(ServerConfigLoader.load(Map.of(), Map.of(), file).properties()).workerThreads()).isEqualTo(3);
  }

  @Test
  void environmentVariablesSetAsyncPurgeKeys() {
    assertThat(AsyncPurgeConfig.settings(
        ServerConfigLoader.load(Map.of(), Map.of("LETHE_ICEBERG_REST_ASYNC_PURGE_MAX_ATTEMPTS", "9"), null).properties())
        .maxAttempts()).isEqualTo(9);
  }
}
