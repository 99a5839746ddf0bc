package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.Test;

/**
 * A commit the server acknowledged survives a SIGKILL right after it on the default embedded H2
 * catalog database (found by {@link LifecycleRandomizedTest}, seed 42: H2 writes committed
 * transactions to its file from a background thread up to a second later;
 * docs/design/0053-h2-commits-survive-a-killed-process.md).
 */
class H2KillDurabilityTest {
  @Test
  void commitsAcknowledgedJustBeforeASigkillAreThereAfterTheRestart() throws Exception {
    Path work = Path.of(System.getProperty("lethe.it.work-dir", "target/it"));
    Files.createDirectories(work);
    Path dir = Files.createTempDirectory(work, "h2-kill-");
    List<String> args = AsyncPurgeHttp.configArgs(dir, Map.of());
    TableIdentifier id = TableIdentifier.of("k", "t");
    List<String> acked = new ArrayList<>();
    try (PurgeServer first = PurgeServer.start(dir, args)) {
      try (RESTCatalog c = AsyncPurgeHttp.client(first.icebergUri(), "main")) {
        c.createNamespace(Namespace.of("k"));
        Table t = c.buildTable(id, PurgeTables.SCHEMA).create();
        for (int i = 0; i < 5; i++) {
          PurgeTables.append(t, i * 10L, 1, "a");
          acked.add(i * 10L + ":a");
        }
      }
      first.kill(); // at once after the last acknowledgement
    }
    try (PurgeServer second = PurgeServer.start(dir, args);
        RESTCatalog c = AsyncPurgeHttp.client(second.icebergUri(), "main")) {
      assertThat(SoftDeleteHttp.rows(c.loadTable(id))).isEqualTo(acked);
    }
  }
}
