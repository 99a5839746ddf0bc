package dev.lethe.catalog.softdelete;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.catalog.purge.ParquetTables;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.Hollow;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.Restore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Undrop never restores a hollow table (docs/design/0301-hollow-restore.md): {@link ReadableFiles}
 * on its own, and {@link SoftDeletes#restore}/{@link SoftDeletes#list} on real tables written by
 * Iceberg's Parquet writers whose files were deleted outside the catalog.
 */
class HollowRestoreTest extends SoftDeleteFixture {
  private static Path path(String location) {
    return Path.of(location.replaceFirst("^file:", ""));
  }

  @Test
  void aTableWithoutSnapshotsNeedsOnlyItsMetadataFile() {
    TableMetadata empty = TableMetadata.newTableMetadata(ParquetTables.SCHEMA, PartitionSpec.unpartitioned(), "/wh/t", Map.of());
    ReadableFiles.Probe probe = new ReadableFiles.Probe() {
      @Override
      public boolean exists(String location) {
        return location.equals("/wh/t/metadata/v1.metadata.json");
      }

      @Override
      public TableMetadata metadata(String metadataLocation) {
        return empty;
      }

      @Override
      public List<String> manifests(Snapshot snapshot) {
        throw new AssertionError("no snapshot, no manifest list to read");
      }
    };
    assertThat(ReadableFiles.check("/wh/t/metadata/v1.metadata.json", probe)).isEqualTo(new ReadableFiles.Readable(1));
    assertThat(ReadableFiles.check("/wh/t/metadata/v2.metadata.json", probe))
        .isEqualTo(new ReadableFiles.Hollow("current metadata file", "/wh/t/metadata/v2.metadata.json"));
  }

  @Test
  void anUnreadableMetadataFileIsNotHollowButUnreadable() {
    ReadableFiles.Probe probe = new ReadableFiles.Probe() {
      @Override
      public boolean exists(String location) {
        return true;
      }

      @Override
      public TableMetadata metadata(String metadataLocation) {
        throw new IllegalStateException("truncated JSON");
      }

      @Override
      public List<String> manifests(Snapshot snapshot) {
        throw new AssertionError("never reached");
      }
    };
    assertThat(ReadableFiles.check("/wh/t/m.json", probe)).isInstanceOfSatisfying(ReadableFiles.Unreadable.class,
        u -> assertThat(u.location()).isEqualTo("/wh/t/m.json"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"metadata file", "manifest list", "manifest"})
  void restoreIsRefusedWhenAFileTheTableNeedsIsGoneAndNothingChanges(String missing) throws Exception {
    open("h2");
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    TableMetadata metadata = ParquetTables.metadata(table);
    Snapshot current = metadata.currentSnapshot();
    List<ManifestFile> manifests = current.allManifests(table.io());
    SoftDeletes sd = softDeletes(true, DAY);
    DeletionRecord r = drop(sd, "t", true);
    String gone = switch (missing) {
      case "metadata file" -> metadata.metadataFileLocation();
      case "manifest list" -> current.manifestListLocation();
      default -> manifests.get(manifests.size() - 1).path();
    };
    Files.delete(path(gone));

    SoftDeletePlanner.RestoreDecision d = sd.restore(row, id("t"));

    assertThat(d).isInstanceOfSatisfying(Hollow.class, h -> assertThat(h.reason()).contains(gone)
        .contains("deleted outside the catalog"));
    assertThat(sd.load(row, id("t")).orElseThrow().record()).as("still retained").isEqualTo(r);
    assertThat(catalog.tableExists(id("t"))).isFalse();
    DeletedTable listed = sd.list(row, ParquetTables.NS).orElseThrow().get(0);
    // the listing checks the metadata file only (one existence test per entry)
    assertThat(listed.recoverable()).isEqualTo(!missing.equals("metadata file"));
    assertThat(listed.notRecoverableReason() != null).isEqualTo(missing.equals("metadata file"));
  }

  @Test
  void anIntactTableIsRestoredAsBefore() throws Exception {
    open("h2");
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    List<org.apache.iceberg.data.Record> rows = ParquetTables.rows(table);
    SoftDeletes sd = softDeletes(true, DAY);
    drop(sd, "t", true);

    assertThat(sd.restore(row, id("t"))).isInstanceOf(Restore.class);
    assertThat(ParquetTables.rows(catalog.loadTable(id("t")))).containsExactlyInAnyOrderElementsOf(rows).isNotEmpty();
  }
}
