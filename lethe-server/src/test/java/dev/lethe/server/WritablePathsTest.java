package dev.lethe.server;

import dev.lethe.server.config.ServerConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.server.config.ConfigException;
import dev.lethe.server.config.ConfigKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which local paths start-up probes, and what a probe does (docs/design/0410-operations.md §3). */
class WritablePathsTest {
  @TempDir Path dir;

  @Test
  void theH2FileOfEachKindOfUrl() {
    assertThat(WritablePaths.h2File("jdbc:h2:file:/srv/lethe/catalog;DB_CLOSE_ON_EXIT=FALSE"))
        .contains(Path.of("/srv/lethe/catalog.mv.db"));
    assertThat(WritablePaths.h2File("jdbc:h2:/srv/db")).contains(Path.of("/srv/db.mv.db"));
    assertThat(WritablePaths.h2File("jdbc:h2:./rel/db;MODE=PostgreSQL")).contains(Path.of("./rel/db.mv.db"));
    assertThat(WritablePaths.h2File("jdbc:h2:~/db")).contains(Path.of(System.getProperty("user.home") + "/db.mv.db"));
    assertThat(WritablePaths.h2File("jdbc:h2:mem:test;DB_CLOSE_DELAY=-1")).isEmpty();
    assertThat(WritablePaths.h2File("jdbc:h2:tcp://host/db")).isEmpty();
    assertThat(WritablePaths.h2File("jdbc:postgresql://db/lethe")).isEmpty();
  }

  @Test
  void storeAndWarehouseDirectoriesOnlyWhenLocal() {
    assertThat(WritablePaths.storeDirectory("file:/srv/store")).contains(Path.of("/srv/store"));
    assertThat(WritablePaths.storeDirectory("file:///srv/store")).contains(Path.of("/srv/store"));
    assertThat(WritablePaths.storeDirectory("jdbc:postgresql://db/s")).isEmpty();
    assertThat(WritablePaths.localWarehouse("/srv/wh")).contains(Path.of("/srv/wh"));
    assertThat(WritablePaths.localWarehouse("file:///srv/wh")).contains(Path.of("/srv/wh"));
    assertThat(WritablePaths.localWarehouse("file:/srv/wh")).contains(Path.of("/srv/wh"));
    assertThat(WritablePaths.localWarehouse("s3://bucket/wh")).isEmpty();
  }

  @Test
  void targetsOfAConfigurationNameTheirKeys() {
    ServerConfig embedded = new ServerConfig("127.0.0.1", 0, dir.resolve("data"));
    assertThat(WritablePaths.of(embedded)).extracting(WritablePaths.Target::what).containsExactly(
        "data directory (lethe.data-dir)", "H2 database (lethe.data-dir) directory", "H2 database (lethe.data-dir) file",
        "store directory (lethe.store.uri)");
    ServerConfig remote = new ServerConfig("127.0.0.1", 0, dir.resolve("data"), "jdbc:postgresql://db/lethe", null, null, 4,
        null, ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, Map.of(ConfigKeys.STORE_URI, "jdbc:postgresql://db/s"));
    assertThat(WritablePaths.of(remote)).extracting(WritablePaths.Target::path).containsExactly(dir.resolve("data"));
  }

  @Test
  void aDirectoryProbeCreatesTheDirectoryAndLeavesNothingBehind() throws Exception {
    Path target = dir.resolve("a/b");
    WritablePaths.probe(new WritablePaths.Target("data directory (lethe.data-dir)", target, false));
    assertThat(target).isDirectory();
    try (var listing = Files.list(target)) {
      assertThat(listing).isEmpty();
    }
  }

  @Test
  void aFileProbeChangesNothingAndAMissingFileIsFine() throws Exception {
    Path db = Files.write(dir.resolve("catalog.mv.db"), new byte[] {1, 2, 3});
    long modified = Files.getLastModifiedTime(db).toMillis();
    WritablePaths.probe(new WritablePaths.Target("H2 database file", db, true));
    assertThat(Files.readAllBytes(db)).containsExactly(1, 2, 3);
    assertThat(Files.getLastModifiedTime(db).toMillis()).isEqualTo(modified);
    WritablePaths.probe(new WritablePaths.Target("H2 database file", dir.resolve("absent.mv.db"), true));
  }

  @Test
  void aRegularFileInTheWayIsAConfigErrorNamingThePath() throws Exception {
    Path file = Files.writeString(dir.resolve("plain"), "x");
    assertThatThrownBy(() -> WritablePaths.probe(new WritablePaths.Target("data directory (lethe.data-dir)", file.resolve("d"), false)))
        .isInstanceOf(ConfigException.class)
        .hasMessage("Cannot write the data directory (lethe.data-dir) " + file.resolve("d") + ": Not a directory");
    assertThatThrownBy(() -> WritablePaths.probe(new WritablePaths.Target("data directory (lethe.data-dir)", file, false)))
        .isInstanceOf(ConfigException.class)
        .hasMessage("Cannot write the data directory (lethe.data-dir) " + file + ": exists and is not a directory");
    Path asDir = Files.createDirectories(dir.resolve("catalog.mv.db"));
    assertThatThrownBy(() -> WritablePaths.probe(new WritablePaths.Target("H2 database file", asDir, true)))
        .isInstanceOf(ConfigException.class).hasMessageStartingWith("Cannot write the H2 database file " + asDir + ": ");
    assertThat(Optional.of(file)).isPresent();
  }
}
