package dev.lethe.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.catalog.softdelete.SoftDeleteSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SoftDeleteConfigTest {
  @TempDir Path dir;

  @Test
  void defaultsAreOffTwentyFourHoursAndAOneMinuteTimer() {
    assertThat(SoftDeleteConfig.settings(Map.of())).isEqualTo(new SoftDeleteSettings(false, 86_400_000L, 60_000L));
  }

  @Test
  void everyKeyIsReadAndTheRangeEndsAreValid() {
    assertThat(SoftDeleteConfig.settings(Map.of(
        "lethe.entity.soft-delete.enabled", "TRUE",
        "lethe.entity.soft-delete.retention-ms", "7776000000",
        "lethe.entity.soft-delete.expiry-interval-ms", "250")))
        .isEqualTo(new SoftDeleteSettings(true, 7_776_000_000L, 250));
    assertThat(SoftDeleteConfig.settings(Map.of("lethe.entity.soft-delete.retention-ms", "0")).retentionMs()).isZero();
  }

  @ParameterizedTest
  @ValueSource(strings = {"-1", "7776000001", "1.5", "24h", "", "9223372036854775808"})
  void malformedRetentionStopsStartUpNamingTheKey(String value) {
    assertThatThrownBy(() -> ServerConfigLoader.toConfig(Map.of("lethe.entity.soft-delete.retention-ms", value)))
        .isInstanceOf(ConfigException.class).hasMessageContaining("lethe.entity.soft-delete.retention-ms");
  }

  @ParameterizedTest
  @ValueSource(strings = {"yes", "1", "", "on"})
  void enabledIsTrueOrFalseOnly(String value) {
    assertThatThrownBy(() -> ServerConfigLoader.toConfig(Map.of("lethe.entity.soft-delete.enabled", value)))
        .isInstanceOf(ConfigException.class).hasMessageContaining("lethe.entity.soft-delete.enabled");
  }

  @Test
  void expiryIntervalMustBePositive() {
    assertThatThrownBy(() -> ServerConfigLoader.toConfig(Map.of("lethe.entity.soft-delete.expiry-interval-ms", "0")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("lethe.entity.soft-delete.expiry-interval-ms");
  }

  @Test
  void aMisspelledSoftDeleteKeyInTheConfigFileStopsStartUp() throws Exception {
    Path file = dir.resolve("lethe.yaml");
    Files.writeString(file, "lethe:\n  entity:\n    soft-delete:\n      enable: true\n");
    assertThatThrownBy(() -> ServerConfigLoader.load(Map.of(), Map.of(), file))
        .isInstanceOf(ConfigException.class).hasMessageContaining("lethe.entity.soft-delete.enable");
    Files.writeString(file, "lethe:\n  entity:\n    soft-delete:\n      enabled: true\n      retention-ms: 5000\n");
    assertThat(SoftDeleteConfig.settings(ServerConfigLoader.load(Map.of(), Map.of(), file).properties()))
        .isEqualTo(new SoftDeleteSettings(true, 5000, 60_000));
  }

  @Test
  void environmentVariablesSetSoftDeleteKeys() {
    Map<String, String> env = Map.of("LETHE_ENTITY_SOFT_DELETE_ENABLED", "true", "LETHE_ENTITY_SOFT_DELETE_RETENTION_MS", "0");
    assertThat(SoftDeleteConfig.settings(ServerConfigLoader.load(Map.of(), env, null).properties()))
        .isEqualTo(new SoftDeleteSettings(true, 0, 60_000));
  }
}
