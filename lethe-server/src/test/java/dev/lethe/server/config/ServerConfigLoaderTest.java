package dev.lethe.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerConfigLoaderTest {
  @TempDir Path dir;

  @Test
  void defaultsServeEmbeddedH2AndLocalWarehouseOnLoopback() {
    ServerConfig c = ServerConfigLoader.load(Map.of(), Map.of(), null);
    assertThat(c.host()).isEqualTo("127.0.0.1");
    assertThat(c.port()).isEqualTo(9001);
    assertThat(c.dataDir()).isEqualTo(Path.of("./lethe-data"));
    assertThat(c.effectiveJdbcUrl()).startsWith("jdbc:h2:file:").endsWith("lethe-data/catalog;DB_CLOSE_ON_EXIT=FALSE");
    assertThat(c.effectiveWarehouse()).endsWith("lethe-data/warehouse");
    assertThat(c.maxRequestBytes()).isEqualTo(8L * 1024 * 1024);
    assertThat(c.authFile()).isNull();
  }

  @Test
  void commandLineBeatsEnvironmentBeatsFileBeatsDefault() throws Exception {
    Path file = dir.resolve("lethe.yaml");
    Files.writeString(file, "lethe:\n  server:\n    port: 7001\n    host: 10.0.0.1\n  data-dir: /from/file\n  http:\n    max-request-bytes: 1024\n");
    Map<String, String> env = Map.of("LETHE_SERVER_PORT", "7002", "LETHE_DATA_DIR", "/from/env");
    ServerConfig c = ServerConfigLoader.load(Map.of(ConfigKeys.PORT, "7003"), env, file);
    assertThat(c.port()).isEqualTo(7003);
    assertThat(c.dataDir()).isEqualTo(Path.of("/from/env"));
    assertThat(c.host()).isEqualTo("10.0.0.1");
    assertThat(c.maxRequestBytes()).isEqualTo(1024);
  }

  @Test
  void propertiesFileAndEnvironmentNamesMapDotsAndDashesToUnderscores() throws Exception {
    Path file = dir.resolve("lethe.properties");
    Files.writeString(file, "lethe.jdbc.url=jdbc:postgresql://db/x\nlethe.jdbc.pool-size=3\n");
    ServerConfig c = ServerConfigLoader.load(Map.of(), Map.of("LETHE_JDBC_POOL_SIZE", "5"), file);
    assertThat(c.jdbcUrl()).isEqualTo("jdbc:postgresql://db/x");
    assertThat(c.jdbcPoolSize()).isEqualTo(5);
    assertThat(ConfigKeys.environmentVariable("lethe.http.max-request-bytes")).isEqualTo("LETHE_HTTP_MAX_REQUEST_BYTES");
  }

  @Test
  void logKeysAreReadFromTheEnvironmentAndRefuseOtherValues() throws Exception {
    ServerConfig c = ServerConfigLoader.load(Map.of(), Map.of("LETHE_LOG_FORMAT", "JSON", "LETHE_LOG_REQUESTS", "true"), null);
    assertThat(OperationsConfig.logFormat(c.properties())).isEqualTo(OperationsConfig.LogFormat.JSON);
    assertThat(OperationsConfig.logRequests(c.properties())).isTrue();
    ServerConfig defaults = ServerConfigLoader.load(Map.of(), Map.of(), null);
    assertThat(OperationsConfig.logFormat(defaults.properties())).isEqualTo(OperationsConfig.LogFormat.TEXT);
    assertThat(OperationsConfig.logRequests(defaults.properties())).isFalse();
    assertThatThrownBy(() -> ServerConfigLoader.load(Map.of(), Map.of("LETHE_LOG_FORMAT", "xml"), null))
        .isInstanceOf(ConfigException.class).hasMessage("Invalid lethe.log.format: expected text or json: xml");
    assertThatThrownBy(() -> ServerConfigLoader.load(Map.of(), Map.of("LETHE_LOG_REQUESTS", "yes"), null))
        .isInstanceOf(ConfigException.class).hasMessage("Invalid lethe.log.requests: expected true or false: yes");
    Path file = dir.resolve("typo.properties");
    Files.writeString(file, "lethe.log.formats=json\n");
    assertThatThrownBy(() -> ServerConfigLoader.load(Map.of(), Map.of(), file))
        .isInstanceOf(ConfigException.class).hasMessageContaining("unknown key lethe.log.formats");
  }

  @Test
  void invalidValuesFailNamingTheKey() {
    assertThatThrownBy(() -> ServerConfigLoader.load(Map.of(ConfigKeys.PORT, "nine"), Map.of(), null))
        .isInstanceOf(ConfigException.class).hasMessageContaining("lethe.server.port");
    assertThatThrownBy(() -> ServerConfigLoader.load(Map.of(), Map.of("LETHE_HTTP_MAX_REQUEST_BYTES", "0"), null))
        .isInstanceOf(ConfigException.class).hasMessageContaining("lethe.http.max-request-bytes");
    assertThatThrownBy(() -> ServerConfigLoader.load(Map.of(ConfigKeys.JDBC_URL, "jdbc:oracle:thin:@x"), Map.of(), null))
        .isInstanceOf(ConfigException.class).hasMessageContaining("lethe.jdbc.url");
    assertThatThrownBy(() -> ServerConfigLoader.load(Map.of(ConfigKeys.AUTH_FILE, dir.resolve("missing.yaml").toString()), Map.of(), null))
        .isInstanceOf(ConfigException.class).hasMessageContaining("lethe.auth.file");
  }

  @Test
  void allowedLocationsComeFromTheEnvironmentOrFileAndEachEntryMustParse() throws Exception {
    ServerConfig c = ServerConfigLoader.load(Map.of(), Map.of("LETHE_CATALOG_ALLOWED_LOCATIONS", "file:/tmp, s3://b/x"), null);
    assertThat(ServerConfigLoader.allowedLocations(c.properties())).isEqualTo("file:/tmp, s3://b/x");
    Path file = dir.resolve("lethe.yaml");
    Files.writeString(file, "lethe:\n  catalog:\n    allowed-locations: /data/lake\n");
    assertThat(ServerConfigLoader.allowedLocations(ServerConfigLoader.load(Map.of(), Map.of(), file).properties()))
        .isEqualTo("/data/lake");
    assertThat(ServerConfigLoader.allowedLocations(ServerConfigLoader.load(Map.of(), Map.of(), null).properties())).isNull();
    assertThatThrownBy(() -> ServerConfigLoader.load(Map.of(), Map.of("LETHE_CATALOG_ALLOWED_LOCATIONS", "/ok,/data/../etc"), null))
        .isInstanceOf(ConfigException.class).hasMessageContaining("lethe.catalog.allowed-locations").hasMessageContaining("'..'");
    assertThatThrownBy(() -> ServerConfigLoader.load(Map.of(), Map.of("LETHE_CATALOG_ALLOWED_LOCATIONS", "relative/dir"), null))
        .isInstanceOf(ConfigException.class).hasMessageContaining("relative");
  }

  @Test
  void passwordNeverAppearsInTheDescription() {
    ServerConfig c = ServerConfigLoader.load(
        Map.of(ConfigKeys.JDBC_URL, "jdbc:postgresql://db/x?user=u&password=s3cret", ConfigKeys.JDBC_PASSWORD, "other-s3cret"),
        Map.of(), null);
    assertThat(c.toString()).doesNotContain("s3cret");
  }

  @Test
  void unknownKeysInLethesSectionsOrOutsideLetheAreRejectedSoATypoCannotTurnAuthOff() throws Exception {
    Path typo = dir.resolve("typo.yaml");
    Files.writeString(typo, "lethe:\n  auth:\n    fil: /etc/lethe/principals.yaml\n");
    assertThatThrownBy(() -> ServerConfigLoader.load(Map.of(), Map.of(), typo))
        .isInstanceOf(ConfigException.class).hasMessageContaining("unknown key lethe.auth.fil");
    Path noRoot = dir.resolve("noroot.yaml");
    Files.writeString(noRoot, "server:\n  port: 9002\n");
    assertThatThrownBy(() -> ServerConfigLoader.load(Map.of(), Map.of(), noRoot))
        .isInstanceOf(ConfigException.class).hasMessageContaining("unknown key server.port");
    Path ok = dir.resolve("ok.properties");
    Files.writeString(ok, "lethe.catalog.properties.s3.endpoint=http://x\nlethe.other-feature.enabled=true\n");
    assertThat(ServerConfigLoader.load(Map.of(), Map.of(), ok).properties())
        .containsEntry("lethe.catalog.properties.s3.endpoint", "http://x");
  }

  @Test
  void yamlSyntaxErrorsAreOneLineWithPositionAndNeverEchoTheFile() throws Exception {
    Path file = dir.resolve("broken.yaml");
    Files.writeString(file, "lethe:\n  jdbc:\n    password: [s3cret\n");
    assertThatThrownBy(() -> ServerConfigLoader.load(Map.of(), Map.of(), file))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("line ")
        .hasMessageNotContaining("s3cret")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    assertThatThrownBy(() -> ServerConfigLoader.load(Map.of(), Map.of(), dir.resolve("missing.yaml")))
        .hasMessageContaining("no such file");
  }
}
