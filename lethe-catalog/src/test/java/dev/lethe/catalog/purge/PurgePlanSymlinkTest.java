package dev.lethe.catalog.purge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.catalog.io.FileIOFactory;
import dev.lethe.catalog.io.LocalFileIO;
import dev.lethe.catalog.jobs.PurgePhase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The purge plan keeps a local path with a symbolic link on its way and says why
 * (docs/design/0007-no-symbolic-link-below-the-warehouse.md): real Parquet tables on the local file
 * system, the catalog's FileIO as {@link FileIOFactory} builds it.
 */
class PurgePlanSymlinkTest {
  @TempDir Path dir;
  private JdbcCatalog catalog;
  private FileIO io;

  @BeforeEach
  void setUp() {
    Path warehouse = dir.resolve("wh");
    catalog = ParquetTables.catalog(warehouse.toString(), LocalFileIO.class.getName(), Map.of());
    io = new FileIOFactory().create(warehouse.toString(), Map.of());
  }

  @AfterEach
  void tearDown() throws IOException {
    catalog.close();
    io.close();
  }

  @Test
  void aDataFileThroughALinkedDirectoryIsKeptWithTheLinkAsReasonAndTheRestIsDeletable() throws IOException {
    Table table = ParquetTables.createRichTable(catalog, "t", Map.of());
    Path outside = Files.createDirectories(dir.resolve("outside"));
    Files.writeString(outside.resolve("target.parquet"), "outside");
    Path link = Path.of(table.location().replaceFirst("^file:", "")).resolve("data/linkdir");
    Files.createSymbolicLink(link, outside);
    DataFile own = ParquetTables.append(table, 900).get(0);
    table.newAppend().appendFile(DataFiles.builder(table.spec()).copy(own)
        .withPath(link.resolve("target.parquet").toString()).build()).commit();

    PurgePlan plan = new PurgePlanner(1000).plan(io, ParquetTables.metadata(table));
    List<PurgeScope.Keep> kept = new ArrayList<>();
    List<String> deletable = new ArrayList<>();
    try (CloseableIterator<List<String>> batches = plan.batches(PurgePhase.DATA_AND_DELETE_FILES, f -> { }, kept::add)) {
      batches.forEachRemaining(deletable::addAll);
    }

    assertThat(kept).singleElement().satisfies(k -> {
      assertThat(k.path()).isEqualTo(link.resolve("target.parquet").toString());
      assertThat(k.reason()).isEqualTo("reached through the symbolic link " + link);
    });
    assertThat(deletable).isNotEmpty().contains(own.location()).noneMatch(p -> p.contains("linkdir"));
  }
}
