package dev.lethe.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class HttpLimitsConfigTest {
  @Test
  void defaultsAreJettysIdleTimeoutAnd32RequestsPerClient() {
    assertThat(HttpLimitsConfig.idleTimeoutMs(Map.of())).isEqualTo(30_000);
    assertThat(HttpLimitsConfig.maxRequestsPerClient(Map.of())).isEqualTo(32);
  }

  @Test
  void aValueOutsideItsRangeNamesTheKey() {
    assertThatThrownBy(() -> HttpLimitsConfig.idleTimeoutMs(Map.of(ConfigKeys.IDLE_TIMEOUT_MS, "0")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("lethe.http.idle-timeout-ms");
    assertThatThrownBy(() -> HttpLimitsConfig.maxRequestsPerClient(Map.of(ConfigKeys.MAX_REQUESTS_PER_CLIENT, "many")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("lethe.http.max-requests-per-client");
    assertThat(HttpLimitsConfig.maxRequestsPerClient(Map.of(ConfigKeys.MAX_REQUESTS_PER_CLIENT, "4"))).isEqualTo(4);
  }
}
