package dev.lethe.server;

import dev.lethe.server.config.ServerConfig;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LetheServerTest {
  @TempDir Path dir;

  @Test
  void healthEndpointAnswersOverHttp() throws Exception {
    try (LetheServer server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir))) {
      HttpResponse<String> r = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/healthz")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).contains("ok");
    }
  }

  @Test
  void unusableWarehouseStopsStartNamingTheKeyAndStoresNoCatalog() throws Exception {
    java.util.Map<String, String> bad = java.util.Map.of(
        dev.lethe.server.config.ConfigKeys.DATA_DIR, dir.toString(),
        dev.lethe.server.config.ConfigKeys.WAREHOUSE, "hdfs://nn/wh");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> LetheServer.start(
            dev.lethe.server.config.ServerConfigLoader.load(bad, java.util.Map.of(), null)))
        .isInstanceOf(dev.lethe.server.config.ConfigException.class)
        .hasMessageContaining("lethe.catalog.warehouse")
        .hasMessageContaining("hdfs://nn/wh");
    try (LetheServer server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir))) {
      assertThat(server.catalogs().catalog("main").orElseThrow().row().warehouse()).doesNotContain("hdfs");
    }
  }

  @Test
  void allowedLocationsOfMainFollowTheServerConfigAtEveryStartAndABadStoredOneStopsStart() throws Exception {
    java.util.Map<String, String> first = java.util.Map.of(dev.lethe.server.config.ConfigKeys.DATA_DIR, dir.toString(),
        dev.lethe.server.config.ConfigKeys.ALLOWED_LOCATIONS, "/data/a");
    try (LetheServer server = LetheServer.start(dev.lethe.server.config.ServerConfigLoader.load(first, java.util.Map.of(), null))) {
      assertThat(server.catalogs().catalog("main").orElseThrow().allowedLocations().locations())
          .extracting(Object::toString).containsExactly(dir.toAbsolutePath().normalize().resolve("warehouse").toString(), "/data/a");
    }
    java.util.Map<String, String> changed = java.util.Map.of(dev.lethe.server.config.ConfigKeys.DATA_DIR, dir.toString(),
        dev.lethe.server.config.ConfigKeys.ALLOWED_LOCATIONS, "/data/b");
    try (LetheServer server = LetheServer.start(dev.lethe.server.config.ServerConfigLoader.load(changed, java.util.Map.of(), null))) {
      assertThat(server.catalogs().catalog("main").orElseThrow().row().properties()).containsEntry("allowed-locations", "/data/b");
    }
    try (LetheServer server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir))) { // unset: the stored value stays
      assertThat(server.catalogs().catalog("main").orElseThrow().row().properties()).containsEntry("allowed-locations", "/data/b");
    }
    Path other = dir.resolve("other");
    java.util.Map<String, String> bad = java.util.Map.of(dev.lethe.server.config.ConfigKeys.DATA_DIR, other.toString(),
        dev.lethe.server.config.ConfigKeys.CATALOG_PROPERTIES + "allowed-locations", "/a,x/../y");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> LetheServer.start(
            dev.lethe.server.config.ServerConfigLoader.load(bad, java.util.Map.of(), null)))
        .isInstanceOf(dev.lethe.server.config.ConfigException.class)
        .hasMessageContaining("allowed-locations");
  }
}
