package dev.lethe.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.GenericBlobMetadata;
import org.apache.iceberg.GenericStatisticsFile;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.PartitionStatsHandler;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.puffin.Blob;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinWriter;
import org.apache.iceberg.types.Types;

/** Real Iceberg tables for the async purge tests, written through a REST client with Iceberg's writers. */
final class PurgeTables {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.required(2, "category", Types.StringType.get()));

  private static long taskId = System.nanoTime();

  private PurgeTables() {}

  /** Appends one snapshot with one Parquet data file of {@code rows} rows; returns the file. */
  static synchronized DataFile append(Table table, long firstId, int rows, String category) {
    List<Record> records = new ArrayList<>();
    for (long i = firstId; i < firstId + rows; i++) {
      GenericRecord r = GenericRecord.create(SCHEMA);
      r.setField("id", i);
      r.setField("category", category);
      records.add(r);
    }
    DataFile file = write(table, records);
    table.newAppend().appendFile(file).commit();
    return file;
  }

  private static synchronized DataFile write(Table table, List<Record> records) {
    GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).build();
    OutputFileFactory outputs = OutputFileFactory.builderFor(table, 1, ++taskId).format(FileFormat.PARQUET).build();
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    key.partition(records.get(0));
    EncryptedOutputFile out = outputs.newOutputFile(table.spec(), key);
    DataWriter<Record> writer = writers.newDataWriter(out, table.spec(), key);
    try (writer) {
      records.forEach(writer::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  /**
   * Gives an unpartitioned table {@code count} real Parquet data files cheaply: one file is written
   * with Iceberg's writer and copied, and the copies are appended in {@code commits} commits.
   */
  static void appendCopies(Table table, int count, int commits) throws IOException {
    DataFile template = append(table, 0, 1, "x");
    Path source = Path.of(template.location().replaceFirst("^file:", ""));
    Path dir = source.getParent();
    int perCommit = (count - 1 + commits - 1) / commits;
    int made = 1;
    while (made < count) {
      AppendFiles append = table.newAppend();
      for (int i = 0; i < perCommit && made < count; i++, made++) {
        Path copy = dir.resolve("copy-" + made + "-" + UUID.randomUUID() + ".parquet");
        Files.copy(source, copy);
        append.appendFile(DataFiles.builder(table.spec()).copy(template).withPath(copy.toString()).build());
      }
      append.commit();
    }
  }

  /**
   * Makes a merge-on-read style table: three appends, a position delete file, a Puffin statistics
   * file and a partition statistics file.
   */
  static void enrich(Table table) throws IOException {
    DataFile first = append(table, 0, 3, "a");
    append(table, 10, 3, "b");
    append(table, 20, 3, "a");
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    GenericRecord row = GenericRecord.create(SCHEMA);
    row.setField("category", "a");
    key.partition(row);
    EncryptedOutputFile out = OutputFileFactory.builderFor(table, 1, ++taskId).format(FileFormat.PARQUET).build()
        .newOutputFile(table.spec(), key);
    PositionDeleteWriter<Record> deletes = new GenericFileWriterFactory.Builder(table).build()
        .newPositionDeleteWriter(out, table.spec(), key);
    try (deletes) {
      deletes.write(PositionDelete.<Record>create().set(first.location(), 0L));
    }
    DeleteFile deleteFile = deletes.toDeleteFile();
    table.newRowDelta().addDeletes(deleteFile).commit();

    Snapshot current = table.currentSnapshot();
    OutputFile stats = table.io().newOutputFile(table.location() + "/metadata/stats-" + UUID.randomUUID() + ".puffin");
    PuffinWriter puffin = Puffin.write(stats).createdBy("lethe-it").build();
    try (puffin) {
      puffin.add(new Blob("lethe-it-blob", List.of(1), current.snapshotId(), current.sequenceNumber(),
          ByteBuffer.wrap("ndv".getBytes(StandardCharsets.UTF_8))));
    }
    table.updateStatistics().setStatistics(new GenericStatisticsFile(current.snapshotId(), stats.location(),
        puffin.fileSize(), puffin.footerSize(), GenericBlobMetadata.from(puffin.writtenBlobsMetadata()))).commit();
    PartitionStatisticsFile partitionStats = PartitionStatsHandler.computeAndWriteStatsFile(table);
    table.updatePartitionStatistics().setPartitionStatistics(partitionStats).commit();
  }

  static Set<Path> files(String location) throws IOException {
    Path dir = Path.of(location.replaceFirst("^file:", ""));
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
