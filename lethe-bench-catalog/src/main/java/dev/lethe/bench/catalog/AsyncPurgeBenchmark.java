package dev.lethe.bench.catalog;

import dev.lethe.catalog.io.LocalFileIO;
import dev.lethe.server.LetheServer;
import dev.lethe.server.ServerConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;

/**
 * Benchmark of the asynchronous purge on the local file system (issue 3), run by hand, never in
 * CI: for each table size it reports the async {@code DELETE} latency (p50/p99 over several
 * tables), the synchronous purge time of one table, the background purge throughput (files/s from
 * the first async drop to the last job {@code SUCCEEDED}), the raw delete rate of the same number
 * of files (LocalFileIO bulk deletes of 1000 on 4 threads, the async defaults) and the peak heap of
 * the process during the background purge.
 *
 * <p>Usage: {@code java -Xmx1g -jar lethe-bench-catalog.jar [files:tables ...]}, default {@code
 * 10000:10 50000:4}. Tables are real Iceberg tables whose data files are copies of one small
 * Parquet file written with Iceberg's generic writer.
 */
public final class AsyncPurgeBenchmark {
  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final Namespace NS = Namespace.of("bench");
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private AsyncPurgeBenchmark() {}

  public static void main(String[] args) throws Exception {
    List<String> runs = args.length == 0 ? List.of("10000:10", "50000:4") : List.of(args);
    System.out.println("| files per table | async DELETE p50 | async DELETE p99 | sync purge | background purge | raw delete | purge/raw | peak heap |");
    System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (String run : runs) {
      String[] parts = run.split(":");
      runOne(Integer.parseInt(parts[0]), parts.length > 1 ? Integer.parseInt(parts[1]) : 5);
    }
  }

  private static void runOne(int files, int tables) throws Exception {
    Path dir = Files.createTempDirectory("lethe-bench-purge-");
    double rawRate = rawDeleteRate(dir.resolve("raw"), files * Math.min(tables, 2));
    try (LetheServer server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 10, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, Map.of("lethe.iceberg-rest.async-purge.poll-interval-ms", "100")))) {
      var catalog = server.catalogs().catalog(LetheServer.DEFAULT_CATALOG).orElseThrow();
      catalog.createNamespace(NS, Map.of());
      String base = "http://127.0.0.1:" + server.port();

      buildTable(catalog.buildTable(TableIdentifier.of(NS, "sync"), SCHEMA).create(), files);
      long s0 = System.nanoTime();
      expect204(delete(base, "sync", false));
      double syncSeconds = (System.nanoTime() - s0) / 1e9;

      List<String> locations = new ArrayList<>();
      for (int i = 0; i < tables; i++) {
        Table t = catalog.buildTable(TableIdentifier.of(NS, "t" + i), SCHEMA).create();
        buildTable(t, files);
        locations.add(t.location());
      }
      buildTable(catalog.buildTable(TableIdentifier.of(NS, "warmup"), SCHEMA).create(), 10);
      expect204(delete(base, "warmup", true)); // first async drop warms up the code path, not measured
      while (!allSucceeded(base, 1)) {
        Thread.sleep(20);
      }
      resetPeaks();
      List<Long> latenciesUs = new ArrayList<>();
      long t0 = System.nanoTime();
      for (int i = 0; i < tables; i++) {
        long a = System.nanoTime();
        expect204(delete(base, "t" + i, true));
        latenciesUs.add((System.nanoTime() - a) / 1000);
      }
      while (!allSucceeded(base, tables + 1)) {
        Thread.sleep(20);
      }
      double purgeSeconds = (System.nanoTime() - t0) / 1e9;
      long peakHeap = peakHeap();
      for (String location : locations) {
        if (count(Path.of(location)) != 0) {
          throw new IllegalStateException("files left under " + location);
        }
      }
      Collections.sort(latenciesUs);
      double purgeRate = (double) files * tables / purgeSeconds;
      System.out.printf("| %,d | %.1f ms | %.1f ms | %.2f s | %,.0f files/s | %,.0f files/s | %.2f | %d MiB |%n",
          files, percentile(latenciesUs, 50) / 1000.0, percentile(latenciesUs, 99) / 1000.0, syncSeconds, purgeRate, rawRate,
          purgeRate / rawRate, peakHeap >> 20);
    }
  }

  private static HttpResponse<String> delete(String base, String table, boolean async) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + "/iceberg/v1/main/namespaces/bench/tables/" + table + "?purgeRequested=true"))
        .DELETE();
    if (async) {
      b.header("X-Lethe-Async-Purge", "true");
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static void expect204(HttpResponse<String> r) {
    if (r.statusCode() != 204) {
      throw new IllegalStateException("DELETE answered " + r.statusCode() + ": " + r.body());
    }
  }

  private static boolean allSucceeded(String base, int tables) throws Exception {
    String body = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/api/metalakes/default/catalogs/main/cleanups?state=SUCCEEDED")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    int n = 0;
    for (int i = body.indexOf("\"SUCCEEDED\""); i >= 0; i = body.indexOf("\"SUCCEEDED\"", i + 1)) {
      n++;
    }
    return n >= tables;
  }

  /** One small Parquet file written with Iceberg's writer, copied {@code files - 1} times, appended in 4 commits. */
  private static void buildTable(Table table, int files) throws IOException {
    GenericRecord row = GenericRecord.create(SCHEMA);
    row.setField("id", 1L);
    OutputFileFactory outputs = OutputFileFactory.builderFor(table, 1, System.nanoTime()).format(FileFormat.PARQUET).build();
    DataWriter<Record> writer = new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).build()
        .newDataWriter(outputs.newOutputFile(), PartitionSpec.unpartitioned(), null);
    try (writer) {
      writer.write(row);
    }
    DataFile template = writer.toDataFile();
    table.newAppend().appendFile(template).commit();
    Path source = Path.of(template.location().replaceFirst("^file:", ""));
    int perCommit = Math.max(1, (files - 1 + 3) / 4);
    int made = 1;
    while (made < files) {
      AppendFiles append = table.newAppend();
      for (int i = 0; i < perCommit && made < files; i++, made++) {
        Path copy = source.resolveSibling("copy-" + made + "-" + UUID.randomUUID() + ".parquet");
        Files.copy(source, copy);
        append.appendFile(DataFiles.builder(table.spec()).copy(template).withPath(copy.toString()).build());
      }
      append.commit();
    }
  }

  /** Files per second of LocalFileIO bulk deletes of 1000 paths on 4 threads. */
  private static double rawDeleteRate(Path dir, int files) throws Exception {
    Files.createDirectories(dir);
    Path source = Files.writeString(dir.resolve("source"), "x".repeat(600));
    List<String> paths = new ArrayList<>(files);
    for (int i = 0; i < files; i++) {
      Path p = dir.resolve("f-" + i);
      Files.copy(source, p);
      paths.add(p.toString());
    }
    LocalFileIO io = new LocalFileIO();
    io.initialize(Map.of());
    ExecutorService pool = Executors.newFixedThreadPool(4);
    long t0 = System.nanoTime();
    List<Future<?>> done = new ArrayList<>();
    for (int i = 0; i < paths.size(); i += 1000) {
      List<String> batch = paths.subList(i, Math.min(i + 1000, paths.size()));
      done.add(pool.submit(() -> io.deleteFiles(batch)));
    }
    for (Future<?> f : done) {
      f.get();
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    pool.shutdown();
    return files / seconds;
  }

  private static void resetPeaks() {
    System.gc();
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        pool.resetPeakUsage();
      }
    }
  }

  private static long peakHeap() {
    long sum = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        sum += pool.getPeakUsage().getUsed();
      }
    }
    return sum;
  }

  private static long count(Path dir) {
    if (!Files.exists(dir)) {
      return 0;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(Files::isRegularFile).count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long percentile(List<Long> sorted, int p) {
    int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(i, sorted.size() - 1)));
  }
}
