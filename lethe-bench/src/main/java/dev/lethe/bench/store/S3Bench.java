package dev.lethe.bench.store;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.sync.Sync;
import dev.lethe.store.core.sync.SyncOptions;
import dev.lethe.store.core.sync.SyncReport;
import dev.lethe.store.fs.Durability;
import dev.lethe.store.fs.FsStore;
import dev.lethe.store.s3.S3Store;
import com.adobe.testing.s3mock.S3MockApplication;
import dev.lethe.store.s3.S3Settings;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The {@code s3:} store beside the raw AWS SDK on the same S3 server in the same run (docs/design/0134-s3-store-measured.md;
 * docs/benchmarks.md "Store on S3"): {@code n} consumer puts of new keys (each a GET that finds
 * nothing, then a PUT with {@code If-None-Match: *}), {@code n} raw GETs of those records' objects
 * and {@code n} raw PUTs with {@code If-None-Match: *} of the same bytes under another prefix, taking
 * turns 100 keys at a time; then {@code n} consumer gets, {@code n} raw GETs of the records' objects,
 * one consumer list of the {@code n} records (ListObjectsV2 pages, then GETs, {@value
 * S3Store#READERS} at once) and {@code n} raw GETs again: the list goal is judged against the mean of
 * the raw GETs right before and after it, on the same full bucket (S3Mock's cost per request grows
 * with the bucket). With {@code --sync M}, a sync of a filled {@code file:} store of
 * {@code M} records (10 % tombstones) into an empty {@code s3:} prefix. One client thread. Prints
 * one line per measurement, a progress line per 1,000 keys put, and a table with the two goals. Run
 * by hand, never in CI (S3Mock's store root is a scratch directory under {@code -Dlethe.bench.dir}:
 * put it on tmpfs):
 *
 * <pre>
 * java -Xmx1g -Dlethe.bench.dir=/dev/shm/lethe-bench \
 *     -cp lethe-bench/target/classes:$(cat lethe-bench/target/bench.classpath) \
 *     dev.lethe.bench.store.S3Bench --records 10000
 * </pre>
 *
 * Without {@code --endpoint URL} it starts S3Mock in this JVM (as the tests do) with bucket {@value
 * #BUCKET}; with one it uses that server's bucket {@value #BUCKET} (which must exist) and the
 * credentials of {@code lethe.store.s3.*} system properties (both clients use them).
 */
// docs/design/0134-s3-store-measured.md
public final class S3Bench {
  private static final String BUCKET = "lethe-bench";

  private S3Bench() {}

  private record Row(String what, long records, double seconds, double cpuSeconds) {
    double rate() {
      return records / seconds;
    }
  }

  public static void main(String[] args) throws Exception {
    int records = 10_000;
    int sync = 0;
    URI endpoint = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--records" -> records = Integer.parseInt(args[++i]);
        case "--sync" -> sync = Integer.parseInt(args[++i]);
        case "--endpoint" -> endpoint = URI.create(args[++i]);
        default -> throw new IllegalArgumentException("Unknown argument " + args[i]
            + "; expected --records N, --sync N, --endpoint URL");
      }
    }
    S3MockApplication mock = null;
    Path mockRoot = null;
    Map<String, String> settings;
    if (endpoint == null) {
      // hadoop-client-runtime registers its shaded Woodstox as the StAX service; S3Mock needs the real one
      for (String api : new String[] {"XMLInputFactory", "XMLOutputFactory", "XMLEventFactory"}) {
        System.setProperty("javax.xml.stream." + api, "com.ctc.wstx.stax.Wstx" + api.substring(3));
      }
      Map<String, Object> props = new HashMap<>();
      props.put(S3MockApplication.PROP_HTTP_PORT, S3MockApplication.RANDOM_PORT);
      props.put(S3MockApplication.PROP_HTTPS_PORT, S3MockApplication.RANDOM_PORT);
      props.put(S3MockApplication.PROP_SILENT, true);
      mockRoot = Dirs.fresh("s3mock");
      props.put("com.adobe.testing.s3mock.store.root", mockRoot.toString());
      mock = S3MockApplication.start(props);
      endpoint = URI.create("http://127.0.0.1:" + mock.getHttpPort());
      settings = Map.of(S3Settings.ACCESS_KEY_ID, "lethe-bench", S3Settings.SECRET_ACCESS_KEY, "secret");
    } else {
      settings = S3Settings.fromProcess(Map.of(), System.getProperties());
    }
    S3Client raw = S3Client.builder().endpointOverride(endpoint).region(Region.US_EAST_1).forcePathStyle(true)
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
            settings.getOrDefault(S3Settings.ACCESS_KEY_ID, "lethe-bench"),
            settings.getOrDefault(S3Settings.SECRET_ACCESS_KEY, "secret"))))
        .build();
    if (mock != null) {
      raw.createBucket(b -> b.bucket(BUCKET));
    }
    List<Row> rows = new ArrayList<>() {
      @Override
      public boolean add(Row r) {
        System.out.printf("measured: %s: %,d records in %.2f s = %,.0f records/s, CPU %.2f s%n", r.what(), r.records(),
            r.seconds(), r.rate(), r.cpuSeconds());
        return super.add(r);
      }
    };
    String bucket = BUCKET;
    String run = "bench-" + UUID.randomUUID();
    int n = records;
    Row consumerPut;
    Row rawPut;
    Row rawBefore;
    Row list;
    Row rawAfter;
    System.out.printf("S3Mock store root: %s%n", mockRoot == null ? "(external server)" : mockRoot);
    try (S3Store store = S3Store.open(uri(endpoint, run + "/store"), settings, System.getenv(), 32,
        Clock.systemUTC())) {
      // warm-up, untimed: compiled code and warm connections for both clients
      for (int i = 0; i < 300; i++) {
        put(store, new RecordKey("warm", "c", "r" + i));
        String objectKey = store.objectKey(new RecordKey("warm", "c", "r" + i));
        raw.getObjectAsBytes(b -> b.bucket(bucket).key(objectKey));
      }
      // S3Mock rewrites one bucket index per PUT, so a PUT costs more as the bucket grows: the three
      // measurements take turns, 100 keys at a time, so each sees the same bucket sizes
      long[] wall = new long[3];
      long[] cpu = new long[3];
      byte[][] bytes = new byte[n][];
      long started = System.nanoTime();
      for (int from = 0; from < n; from += 100) {
        if (from > 0 && from % 1000 == 0) {
          System.out.printf("progress: %,d of %,d keys put (all three) in %.0f s%n", from, n,
              (System.nanoTime() - started) / 1e9);
        }
        int to = Math.min(n, from + 100);
        long t = System.nanoTime();
        long c = cpuNanos();
        for (int i = from; i < to; i++) {
          put(store, key("c" + (i % 100), i));
        }
        wall[0] += System.nanoTime() - t;
        cpu[0] += cpuNanos() - c;
        t = System.nanoTime();
        c = cpuNanos();
        for (int i = from; i < to; i++) {
          String objectKey = store.objectKey(key("c" + (i % 100), i));
          bytes[i] = raw.getObjectAsBytes(b -> b.bucket(bucket).key(objectKey)).asByteArray();
        }
        wall[1] += System.nanoTime() - t;
        cpu[1] += cpuNanos() - c;
        t = System.nanoTime();
        c = cpuNanos();
        for (int i = from; i < to; i++) {
          String objectKey = run + "/raw/" + i;
          byte[] body = bytes[i];
          raw.putObject(b -> b.bucket(bucket).key(objectKey).ifNoneMatch("*").contentType("application/json"),
              RequestBody.fromBytes(body));
        }
        wall[2] += System.nanoTime() - t;
        cpu[2] += cpuNanos() - c;
      }
      consumerPut = new Row("s3: consumer put (GET, PUT If-None-Match: *)", n, wall[0] / 1e9, cpu[0] / 1e9);
      rows.add(consumerPut);
      rows.add(new Row("raw SDK GET of the same objects (in turns with the puts, bucket growing)", n,
          wall[1] / 1e9, cpu[1] / 1e9));
      rawPut = new Row("raw SDK PUT If-None-Match: * of the same bytes", n, wall[2] / 1e9, cpu[2] / 1e9);
      rows.add(rawPut);

      long t0 = System.nanoTime();
      long c0 = cpuNanos();
      for (int i = 0; i < n; i++) {
        if (store.get(key("c" + (i % 100), i)).isEmpty()) {
          throw new IllegalStateException("missing record " + i);
        }
      }
      rows.add(row("s3: consumer get", n, t0, c0));

      // the list goal is judged against raw GETs of the same objects on the same full bucket, timed
      // right before and right after the list (S3Mock's per-request cost grows with the bucket)
      rawBefore = rawGets(raw, store, n, "raw SDK GET of the same objects, full bucket, before the list");
      rows.add(rawBefore);
      t0 = System.nanoTime();
      c0 = cpuNanos();
      int listed = store.list(KeyPrefix.namespace("bench")).size();
      list = row("s3: consumer list of the namespace (full bucket)", listed, t0, c0);
      rows.add(list);
      if (listed != n) {
        throw new IllegalStateException("listed " + listed + " of " + n);
      }
      rawAfter = rawGets(raw, store, n, "raw SDK GET of the same objects, full bucket, after the list");
      rows.add(rawAfter);
    }
    if (sync > 0) {
      Path dir = Dirs.fresh("s3-sync");
      try (S3Store to = S3Store.open(uri(endpoint, run + "/sync"), settings, System.getenv(), 32,
          Clock.systemUTC())) {
        Fill.records(dir, sync, 10);
        FsStore from = Fill.open(dir, Durability.NO_FSYNC);
        long t0 = System.nanoTime();
        long c0 = cpuNanos();
        SyncReport r = Sync.run(from, to, KeyPrefix.namespace("bench"), SyncOptions.DEFAULTS);
        rows.add(row("sync file: -> s3: (empty prefix)", sync, t0, c0));
        if (r.copied() != sync || !r.converged()) {
          throw new IllegalStateException("unexpected sync report " + r);
        }
      } finally {
        Dirs.remove(dir);
      }
    }
    raw.close();
    if (mock != null) {
      mock.stop();
      Dirs.remove(mockRoot);
    }
    System.out.printf("%n| operation | records | seconds | records/s | CPU s |%n|---|---:|---:|---:|---:|%n");
    for (Row r : rows) {
      System.out.printf("| %s | %,d | %.2f | %,.0f | %.2f |%n", r.what(), r.records(), r.seconds(), r.rate(),
          r.cpuSeconds());
    }
    System.out.printf("%nput goal (s3: put >= 0.5x raw conditional PUT): %.2fx%n", consumerPut.rate() / rawPut.rate());
    double rawMean = (rawBefore.seconds() + rawAfter.seconds()) / 2;
    System.out.printf("list goal (list of %,d <= 2x the time of %,d raw GETs on the full bucket): %.2fx the mean"
        + " of the raw GETs before and after it (%.2fx before, %.2fx after)%n", n, n, list.seconds() / rawMean,
        list.seconds() / rawBefore.seconds(), list.seconds() / rawAfter.seconds());
  }

  /** Times {@code n} raw SDK GETs of the store's objects for the bench records, in key order. */
  private static Row rawGets(S3Client raw, S3Store store, int n, String what) {
    long t0 = System.nanoTime();
    long c0 = cpuNanos();
    for (int i = 0; i < n; i++) {
      String objectKey = store.objectKey(key("c" + (i % 100), i));
      raw.getObjectAsBytes(b -> b.bucket(BUCKET).key(objectKey));
    }
    return row(what, n, t0, c0);
  }

  private static String uri(URI endpoint, String prefix) {
    return "s3://" + BUCKET + "/" + prefix + "?endpoint=" + endpoint;
  }

  private static RecordKey key(String collection, int i) {
    return new RecordKey("bench", collection, "r" + i);
  }

  private static void put(S3Store store, RecordKey key) {
    PutResult r = store.put(Record.draft(key, Kind.DOCUMENT, Body.Inline.text("record " + key.id() + " " + "x".repeat(100)),
        Meta.byAuthor("bench")), Optional.empty());
    if (!(r instanceof Committed)) {
      throw new IllegalStateException("put " + key + " was " + r);
    }
  }

  private static Row row(String what, long records, long t0, long c0) {
    return new Row(what, records, (System.nanoTime() - t0) / 1e9, (cpuNanos() - c0) / 1e9);
  }

  /** CPU time used by this JVM so far, ns (all threads, user and system; S3Mock runs in it too). */
  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }
}
