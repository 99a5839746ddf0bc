package dev.lethe.catalog.purge;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.GenericBlobMetadata;
import org.apache.iceberg.GenericStatisticsFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.PartitionStatsHandler;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.puffin.Blob;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinWriter;
import org.apache.iceberg.types.Types;

/**
 * Real Iceberg tables for purge tests: partitioned, Parquet data written with Iceberg's generic
 * writers, a position delete file, a deleted data file (a DELETED manifest entry), a Puffin
 * statistics file and a partition statistics file.
 */
public final class ParquetTables {
  public static final Schema SCHEMA =
      new Schema(
          required(1, "id", Types.LongType.get()),
          required(2, "category", Types.StringType.get()),
          optional(3, "data", Types.StringType.get()));
  public static final PartitionSpec SPEC = PartitionSpec.builderFor(SCHEMA).identity("category").build();
  public static final Namespace NS = Namespace.of("db");

  private ParquetTables() {}

  /**
   * Iceberg's own {@link JdbcCatalog} on a private in-memory H2 database, with tables under {@code
   * warehouse} written through {@code ioImpl} ({@code InMemoryCatalog} would ignore {@code
   * io-impl}).
   */
  public static JdbcCatalog catalog(String warehouse, String ioImpl, Map<String, String> ioProps) {
    JdbcCatalog catalog = new JdbcCatalog();
    Map<String, String> props = new java.util.HashMap<>(ioProps);
    props.put(CatalogProperties.URI, "jdbc:h2:mem:purge-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    props.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse);
    props.put(CatalogProperties.FILE_IO_IMPL, ioImpl);
    props.put("jdbc.schema-version", "V1");
    catalog.initialize("test", props);
    catalog.createNamespace(NS);
    return catalog;
  }

  /**
   * Creates table {@code db.<name>} (format v2) and commits: three appends of two Parquet files
   * each (partitions "a" and "b"), a position delete of row 0 of the first file, a delete of the
   * second append's "a" file, a statistics file and a partition statistics file.
   */
  public static Table createRichTable(Catalog catalog, String name, Map<String, String> properties) {
    Map<String, String> props = new java.util.HashMap<>(properties);
    props.putIfAbsent(TableProperties.FORMAT_VERSION, "2");
    Table table = catalog.createTable(TableIdentifier.of(NS, name), SCHEMA, SPEC, props);
    List<List<DataFile>> appended = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      appended.add(append(table, i * 100L));
    }
    DataFile firstA = appended.get(0).get(0);
    table.newRowDelta().addDeletes(positionDelete(table, firstA, 0L)).commit();
    table.newDelete().deleteFile(appended.get(1).get(0)).commit();
    addStatistics(table);
    addPartitionStatistics(table);
    return table;
  }

  /** Writes (without committing) one Parquet data file per category ("a", "b"), 3 rows each. */
  public static List<DataFile> writeDataFiles(Table table, long firstId) {
    List<DataFile> files = new ArrayList<>();
    for (String category : List.of("a", "b")) {
      List<Record> rows = new ArrayList<>();
      for (long id = firstId; id < firstId + 3; id++) {
        GenericRecord row = GenericRecord.create(SCHEMA);
        row.setField("id", id);
        row.setField("category", category);
        row.setField("data", "row-" + id);
        rows.add(row);
      }
      files.add(writeDataFile(table, category, rows));
    }
    return files;
  }

  /** Appends one snapshot with one Parquet data file per category ("a", "b"), 3 rows each. */
  public static List<DataFile> append(Table table, long firstId) {
    List<DataFile> files = new ArrayList<>();
    AppendFiles append = table.newAppend();
    for (String category : List.of("a", "b")) {
      List<Record> rows = new ArrayList<>();
      for (long id = firstId; id < firstId + 3; id++) {
        GenericRecord row = GenericRecord.create(SCHEMA);
        row.setField("id", id);
        row.setField("category", category);
        row.setField("data", "row-" + id);
        rows.add(row);
      }
      DataFile file = writeDataFile(table, category, rows);
      files.add(file);
      append.appendFile(file);
    }
    append.commit();
    return files;
  }

  private static PartitionKey key(Table table, String category) {
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    GenericRecord row = GenericRecord.create(SCHEMA);
    row.setField("category", category);
    key.partition(row);
    return key;
  }

  private static OutputFileFactory files(Table table) {
    return OutputFileFactory.builderFor(table, 1, System.nanoTime()).format(FileFormat.PARQUET).build();
  }

  private static DataFile writeDataFile(Table table, String category, List<Record> rows) {
    PartitionKey key = key(table, category);
    EncryptedOutputFile out = files(table).newOutputFile(table.spec(), key);
    DataWriter<Record> writer =
        new GenericFileWriterFactory.Builder(table).build().newDataWriter(out, table.spec(), key);
    try (writer) {
      rows.forEach(writer::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  private static DeleteFile positionDelete(Table table, DataFile target, long position) {
    PartitionKey key = key(table, "a");
    EncryptedOutputFile out = files(table).newOutputFile(table.spec(), key);
    PositionDeleteWriter<Record> writer =
        new GenericFileWriterFactory.Builder(table).build().newPositionDeleteWriter(out, table.spec(), key);
    try (writer) {
      PositionDelete<Record> delete = PositionDelete.create();
      writer.write(delete.set(target.location(), position));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDeleteFile();
  }

  private static void addStatistics(Table table) {
    Snapshot current = table.currentSnapshot();
    OutputFile out =
        table.io().newOutputFile(table.location() + "/metadata/stats-" + UUID.randomUUID() + ".puffin");
    PuffinWriter writer = Puffin.write(out).createdBy("lethe-test").build();
    try (writer) {
      writer.add(
          new Blob(
              "lethe-test-blob",
              List.of(1),
              current.snapshotId(),
              current.sequenceNumber(),
              ByteBuffer.wrap("ndv".getBytes(StandardCharsets.UTF_8))));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    table
        .updateStatistics()
        .setStatistics(
            new GenericStatisticsFile(
                current.snapshotId(),
                out.location(),
                writer.fileSize(),
                writer.footerSize(),
                GenericBlobMetadata.from(writer.writtenBlobsMetadata())))
        .commit();
  }

  private static void addPartitionStatistics(Table table) {
    try {
      PartitionStatisticsFile file = PartitionStatsHandler.computeAndWriteStatsFile(table);
      table.updatePartitionStatistics().setPartitionStatistics(file).commit();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The table's current metadata, as read from its current metadata file. */
  public static TableMetadata metadata(Table table) {
    return ((HasTableOperations) table).operations().current();
  }

  /** All rows of the table, read through Iceberg's generic reader (applies deletes). */
  public static List<Record> rows(Table table) {
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      records.forEach(r -> rows.add(r.copy()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return rows;
  }
}
