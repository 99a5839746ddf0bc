package dev.lethe.bench.catalog;

import dev.lethe.catalog.io.LocalFileIO;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
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
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;

/**
 * Benchmark of the asynchronous purge on the local file system (docs/benchmarks.md "Catalog: asynchronous purge"), run by hand, never in
 * CI. For each table size it reports:
 *
 * <ul>
 *   <li>the async {@code DELETE} latency (p50, p99 and max over every drop of the size), timed
 *       while the purges of the earlier drops run in the background;
 *   <li>the synchronous purge time of one table, on Lethe and on Iceberg's reference REST server
 *       ({@code org.apache.iceberg.rest.RESTCatalogServer} from iceberg-open-api test-fixtures,
 *       started as a child JVM: JdbcCatalog on in-memory SQLite, HadoopFileIO, {@code
 *       CatalogUtil.dropTableData} on the request thread);
 *   <li>the background purge throughput (files/s from the first async drop to the last job {@code
 *       SUCCEEDED});
 *   <li>the raw delete rate of as many files laid out like a table's data directory (LocalFileIO
 *       bulk deletes of 1000 paths on 4 threads, the async defaults), in the order the manifests
 *       list them and in directory order (see {@link #rawDeleteRate}); both the raw files and the
 *       tables' files are written back to disk ({@code sync}) before they are deleted;
 *   <li>the peak heap of the Lethe process during the background purge.
 * </ul>
 *
 * <p>Usage: {@code java -Xmx1g -cp lethe-bench.jar dev.lethe.bench.catalog.AsyncPurgeBenchmark
 * [--no-reference] [--latencies] [files:tables ...]}, default {@code 10000:10 50000:4}. {@code
 * --latencies} prints every drop's latency to stderr. Tables are real Iceberg tables whose data
 * files are copies of one small Parquet file written with Iceberg's generic writer.
 */
public final class AsyncPurgeBenchmark {
  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  private static final Namespace NS = Namespace.of("bench");
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final int FILES_PER_COMMIT = 10_000;
  private static final int WARMUP_DROPS = Integer.getInteger("lethe.bench.warmup-drops", 50);

  private AsyncPurgeBenchmark() {}

  public static void main(String[] args) throws Exception {
    List<String> runs = new ArrayList<>();
    boolean reference = true;
    boolean latencies = false;
    for (String arg : args) {
      switch (arg) {
        case "--no-reference" -> reference = false;
        case "--latencies" -> latencies = true;
        default -> runs.add(arg);
      }
    }
    if (runs.isEmpty()) {
      runs = List.of("10000:10", "50000:4");
    }
    System.out.println("| files per table | drops | async DELETE p50 | p99 | max | sync purge (Lethe) "
        + "| sync purge (Iceberg reference) | background purge | raw delete | purge/raw | directory-order floor | peak heap |");
    System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (String run : runs) {
      String[] parts = run.split(":");
      runOne(Integer.parseInt(parts[0]), parts.length > 1 ? Integer.parseInt(parts[1]) : 5, reference, latencies);
    }
  }

  private static void runOne(int files, int tables, boolean reference, boolean printLatencies) throws Exception {
    Path dir = Files.createTempDirectory("lethe-bench-purge-");
    double rawRate = rawDeleteRate(dir.resolve("raw"), files, false);
    double floorRate = rawDeleteRate(dir.resolve("floor"), files, true);
    double referenceSeconds = reference ? referenceSyncPurge(dir.resolve("reference"), files) : Double.NaN;
    try (LetheServer server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 10, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, Map.of("lethe.iceberg-rest.async-purge.poll-interval-ms", "100")))) {
      var catalog = server.catalogs().catalog(LetheServer.DEFAULT_CATALOG).orElseThrow();
      catalog.createNamespace(NS, Map.of());
      String base = "http://127.0.0.1:" + server.port() + "/iceberg/v1/main";

      buildTable(catalog.buildTable(TableIdentifier.of(NS, "sync"), SCHEMA).create(), files);
      double syncSeconds = timedDrop(base, "sync", false) / 1e9;

      List<String> locations = new ArrayList<>();
      for (int i = 0; i < tables; i++) {
        Table t = catalog.buildTable(TableIdentifier.of(NS, "t" + i), SCHEMA).create();
        buildTable(t, files);
        locations.add(t.location());
      }
      syncFileSystem();
      // warm-up drops of small tables bring the request path to compiled code, as on a running server; not measured
      String cleanups = "http://127.0.0.1:" + server.port() + "/api/metalakes/default/catalogs/main/cleanups?limit=10000&state=";
      for (int i = 0; i < WARMUP_DROPS; i++) {
        buildTable(catalog.buildTable(TableIdentifier.of(NS, "warmup" + i), SCHEMA).create(), 10);
        timedDrop(base, "warmup" + i, true);
      }
      while (!allEnded(cleanups)) {
        Thread.sleep(20);
      }
      resetPeaks();
      List<Long> latenciesUs = new ArrayList<>();
      long t0 = System.nanoTime();
      for (int i = 0; i < tables; i++) {
        long us = timedDrop(base, "t" + i, true) / 1000;
        latenciesUs.add(us);
        if (printLatencies) {
          System.err.printf("%,d files: drop %d took %.1f ms%n", files, i, us / 1000.0);
        }
      }
      while (!allEnded(cleanups)) {
        Thread.sleep(20);
      }
      double purgeSeconds = (System.nanoTime() - t0) / 1e9;
      long peakHeap = peakHeap();
      for (String location : locations) {
        if (count(Path.of(location.replaceFirst("^file:", ""))) != 0) {
          throw new IllegalStateException("files left under " + location);
        }
      }
      Collections.sort(latenciesUs);
      double purgeRate = (double) files * tables / purgeSeconds;
      System.out.printf("| %,d | %d | %.1f ms | %.1f ms | %.1f ms | %.2f s | %s | %,.0f files/s | %,.0f files/s | %.2f | %,.0f files/s | %d MiB |%n",
          files, tables, percentile(latenciesUs, 50) / 1000.0, percentile(latenciesUs, 99) / 1000.0,
          latenciesUs.get(latenciesUs.size() - 1) / 1000.0, syncSeconds,
          Double.isNaN(referenceSeconds) ? "not run" : String.format("%.2f s", referenceSeconds),
          purgeRate, rawRate, purgeRate / rawRate, floorRate, peakHeap >> 20);
    }
  }

  /**
   * Seconds Iceberg's reference REST server takes for {@code DELETE …?purgeRequested=true} of a
   * table of {@code files} data files built the same way. The client writes manifests and data
   * files with LocalFileIO; the server writes metadata files and purges with HadoopFileIO.
   */
  private static double referenceSyncPurge(Path dir, int files) throws Exception {
    Path warehouse = Files.createDirectories(dir.resolve("warehouse"));
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classpath = Path.of(AsyncPurgeBenchmark.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    ProcessBuilder builder = new ProcessBuilder(java, "-Xmx1g", "-cp", classpath, "org.apache.iceberg.rest.RESTCatalogServer");
    builder.environment().put("CATALOG_WAREHOUSE", warehouse.toString());
    builder.environment().put("CATALOG_REST_PORT", String.valueOf(port));
    builder.redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile());
    Process process = builder.start();
    String base = "http://127.0.0.1:" + port + "/v1";
    try (RESTCatalog client = new RESTCatalog()) {
      awaitUp(process, base + "/config", dir.resolve("server.log"));
      client.initialize("reference", Map.of("uri", base.substring(0, base.length() - 3), "io-impl", LocalFileIO.class.getName()));
      client.createNamespace(NS);
      Table table = client.buildTable(TableIdentifier.of(NS, "sync"), SCHEMA).create();
      buildTable(table, files);
      double seconds = timedDrop(base, "sync", false) / 1e9;
      long left = count(Path.of(table.location().replaceFirst("^file:", "")));
      if (left != 0) {
        throw new IllegalStateException("reference server left " + left + " files under " + table.location());
      }
      return seconds;
    } finally {
      process.destroy();
      process.waitFor();
    }
  }

  private static void awaitUp(Process process, String configUrl, Path log) throws Exception {
    for (int i = 0; i < 600; i++) {
      if (!process.isAlive()) {
        throw new IllegalStateException("reference server exited; see " + log);
      }
      try {
        if (HTTP.send(HttpRequest.newBuilder(URI.create(configUrl)).build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("reference server did not start in 60 s; see " + log);
  }

  /** Nanoseconds of one {@code DELETE …/tables/{table}?purgeRequested=true}; fails unless 204. */
  private static long timedDrop(String base, String table, boolean async) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + "/namespaces/bench/tables/" + table + "?purgeRequested=true"))
        .DELETE();
    if (async) {
      b.header("X-Lethe-Async-Purge", "true");
    }
    long t0 = System.nanoTime();
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    long took = System.nanoTime() - t0;
    if (r.statusCode() != 204) {
      throw new IllegalStateException("DELETE " + table + " answered " + r.statusCode() + ": " + r.body());
    }
    return took;
  }

  /**
   * True once no cleanup job is {@code PENDING} or {@code RUNNING} (the synchronous purge is a job
   * too, so counting {@code SUCCEEDED} jobs would end the wait one job early); throws if any job
   * {@code FAILED}.
   */
  private static boolean allEnded(String cleanupsUrl) throws Exception {
    if (jobs(cleanupsUrl + "FAILED")) {
      throw new IllegalStateException("a cleanup job FAILED: " + get(cleanupsUrl + "FAILED"));
    }
    return !jobs(cleanupsUrl + "PENDING") && !jobs(cleanupsUrl + "RUNNING");
  }

  private static boolean jobs(String url) throws Exception {
    return get(url).contains("\"state\"");
  }

  private static String get(String url) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString()).body();
  }

  /**
   * One small Parquet file written with Iceberg's writer, copied {@code files - 1} times, appended
   * in commits of {@link #FILES_PER_COMMIT} (one manifest each), so a 500K-file table has 50
   * manifests and the client never holds more than 10K data files.
   */
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
    int perCommit = FILES_PER_COMMIT;
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

  /**
   * Files per second of LocalFileIO bulk deletes of 1000 paths on 4 threads (the async defaults) of
   * {@code files} files laid out like a table's data directory: one directory, Iceberg-like names
   * ({@code copy-<n>-<uuid>.parquet}), created in order. {@code directoryOrder} false deletes them
   * in creation order, which is the order a table's manifests list them, so it is the floor of any
   * purge that deletes what the metadata names; true deletes them in the order the directory lists
   * them ({@code rm -rf} order), which ext4's hashed directories serve several times faster.
   */
  private static double rawDeleteRate(Path dir, int files, boolean directoryOrder) throws Exception {
    Path data = Files.createDirectories(dir.resolve("data"));
    Path source = Files.writeString(dir.resolve("source"), "x".repeat(600));
    List<String> paths = new ArrayList<>(files);
    for (int i = 0; i < files; i++) {
      Path p = data.resolve("copy-" + i + "-" + UUID.randomUUID() + ".parquet");
      Files.copy(source, p);
      paths.add(p.toString());
    }
    if (directoryOrder) {
      paths.clear();
      try (Stream<Path> listed = Files.list(data)) {
        listed.forEach(p -> paths.add(p.toString()));
      }
    }
    syncFileSystem();
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
    if (count(data) != 0) {
      throw new IllegalStateException("raw delete left files under " + data);
    }
    return files / seconds;
  }

  /**
   * Runs {@code sync(1)} so the files about to be deleted are on disk, as a real table's files are:
   * on ext4 an unlink of a file whose blocks were never written back is several times cheaper than
   * one of a file on disk (and with the {@code discard} mount option, cheaper still), so a raw
   * delete of just-created files would be a floor no purge of an older table can reach.
   */
  private static void syncFileSystem() throws IOException, InterruptedException {
    Process p = new ProcessBuilder("sync").inheritIO().start();
    if (p.waitFor() != 0) {
      throw new IllegalStateException("sync exited with " + p.exitValue());
    }
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

  /** Regular files under {@code dir} (0 if it is absent); entries that vanish during the walk are not counted. */
  private static long count(Path dir) {
    if (!Files.exists(dir)) {
      return 0;
    }
    long[] n = {0};
    try {
      Files.walkFileTree(dir, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
          if (attrs.isRegularFile()) {
            n[0]++;
          }
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
          if (e instanceof NoSuchFileException) {
            return FileVisitResult.CONTINUE;
          }
          throw e;
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return n[0];
  }

  private static long percentile(List<Long> sorted, int p) {
    int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(i, sorted.size() - 1)));
  }
}
