package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Real data end to end through a real server process with iceberg-java's RESTCatalog: a partitioned
 * table with three Parquet snapshots written by Iceberg's generic writers, read back, dropped
 * without purge (every file stays), registered again, purged (nothing of it stays, a sibling table
 * keeps every file), and a {@code gc.enabled=false} table whose purge keeps its data files.
 */
class DropPurgeEndToEndTest {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.required(2, "category", Types.StringType.get()));
  private static final PartitionSpec SPEC = PartitionSpec.builderFor(SCHEMA).identity("category").build();
  private static final Namespace NS = Namespace.of("e2e");
  private static ServerFixture server;
  private static int taskId;

  @BeforeAll
  static void start() throws Exception {
    server = ServerFixture.start("e2e", Map.of());
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  @Test
  void dropKeepsFilesRegisterRestoresAndPurgeRemovesOnlyThatTable() throws Exception {
    try (RESTCatalog catalog = server.client(null)) {
      catalog.createNamespace(NS);
      // inside the warehouse: a location outside the allowed locations is refused (issue 9 rule 1)
      Path root = server.dataDir.resolve("warehouse").resolve("tables").toAbsolutePath();
      TableIdentifier t = TableIdentifier.of(NS, "t");
      TableIdentifier t2 = TableIdentifier.of(NS, "t2");
      Table table = catalog.buildTable(t, SCHEMA).withPartitionSpec(SPEC).withLocation(root.resolve("t").toString()).create();
      Table sibling = catalog.buildTable(t2, SCHEMA).withPartitionSpec(SPEC).withLocation(root.resolve("t2").toString()).create();

      for (int snapshot = 0; snapshot < 3; snapshot++) {
        append(table, snapshot * 10, snapshot % 2 == 0 ? "books" : "games");
      }
      append(sibling, 100, "books");
      table = catalog.loadTable(t);
      assertThat(table.snapshots()).hasSize(3);
      assertThat(ids(table)).hasSize(15).contains(0L, 14L, 24L);

      Set<Path> tableFiles = files(root.resolve("t"));
      Set<Path> siblingFiles = files(root.resolve("t2"));
      assertThat(tableFiles).anySatisfy(p -> assertThat(p.toString()).endsWith(".parquet"));
      String metadataLocation = ((BaseTable) table).operations().current().metadataFileLocation();

      // (a) drop without purge: the entry goes, every file stays
      assertThat(catalog.dropTable(t, false)).isTrue();
      assertThat(catalog.tableExists(t)).isFalse();
      assertThat(files(root.resolve("t"))).isEqualTo(tableFiles);

      // (b) register again from its metadata location
      Table registered = catalog.registerTable(t, metadataLocation);
      assertThat(ids(registered)).hasSize(15);

      // (c) purge: nothing of the table stays; the sibling ".../t2" keeps every file
      assertThat(catalog.dropTable(t, true)).isTrue();
      assertThat(files(root.resolve("t"))).isEmpty();
      assertThat(files(root.resolve("t2"))).isEqualTo(siblingFiles);
      assertThat(ids(catalog.loadTable(t2))).hasSize(5);
    }
  }

  @Test
  void purgeOfTableWithGcDisabledKeepsItsDataFiles() throws Exception {
    try (RESTCatalog catalog = server.client(null)) {
      Namespace ns = Namespace.of("nogc");
      catalog.createNamespace(ns);
      TableIdentifier id = TableIdentifier.of(ns, "kept");
      Path location = server.dataDir.resolve("warehouse").resolve("tables-nogc").resolve("kept").toAbsolutePath();
      Table table = catalog.buildTable(id, SCHEMA).withPartitionSpec(SPEC).withLocation(location.toString())
          .withProperty(TableProperties.GC_ENABLED, "false").create();
      append(table, 0, "books");
      append(table, 10, "games");
      Set<Path> dataFiles = new TreeSet<>();
      for (Path p : files(location)) {
        if (p.toString().endsWith(".parquet")) {
          dataFiles.add(p);
        }
      }
      assertThat(dataFiles).hasSize(2);

      assertThat(catalog.dropTable(id, true)).isTrue();
      assertThat(files(location)).isEqualTo(dataFiles);
    }
  }

  private static void append(Table table, long firstId, String category) throws IOException {
    List<Record> records = new ArrayList<>();
    for (long i = firstId; i < firstId + 5; i++) {
      GenericRecord r = GenericRecord.create(SCHEMA);
      r.setField("id", i);
      r.setField("category", category);
      records.add(r);
    }
    GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).build();
    OutputFileFactory outputs = OutputFileFactory.builderFor(table, 1, ++taskId).format(FileFormat.PARQUET).build();
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    key.partition(records.get(0));
    EncryptedOutputFile out = outputs.newOutputFile(table.spec(), key);
    DataWriter<Record> writer = writers.newDataWriter(out, table.spec(), key);
    try (writer) {
      records.forEach(writer::write);
    }
    DataFile file = writer.toDataFile();
    table.newAppend().appendFile(file).commit();
  }

  private static List<Long> ids(Table table) throws IOException {
    List<Long> ids = new ArrayList<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      rows.forEach(r -> ids.add((Long) r.getField("id")));
    }
    return ids;
  }

  private static Set<Path> files(Path dir) throws IOException {
    Set<Path> files = new TreeSet<>();
    if (!Files.exists(dir)) {
      return files;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.filter(Files::isRegularFile).forEach(files::add);
    }
    return files;
  }
}
