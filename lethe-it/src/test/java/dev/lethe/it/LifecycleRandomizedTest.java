package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.GenericBlobMetadata;
import org.apache.iceberg.GenericStatisticsFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.puffin.Blob;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinWriter;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The randomized lifecycle test of issue 9: a real {@code lethe server} process, killed with
 * SIGKILL and restarted on the same data directory / database between epochs (soft deletion
 * turned on or off at random at each start, short retention, fast job polling, often while purge
 * jobs are still pending or running), and two clients interleaving create, append (Iceberg's
 * writers; one client with Iceberg's default FileIO, so Hadoop's {@code .crc} files appear),
 * data and statistics files placed outside any table ("sentinels"), register of another table's
 * metadata under four spellings of one path, rename, every drop variant, undrop, purge-now and
 * expiry, moves (set-location, a new write.data.path or write.metadata.path, often followed by an
 * append) and attempts to take a moved table's earlier root while its snapshots use it (a create
 * there, a register of its pre-move metadata, a move of another table into it: each refused, the
 * table still scans; docs/design/0004-a-table-owns-every-root-its-snapshots-use.md). The oracle
 * (docs/purge.md rules 1–3, docs/soft-delete.md) checks at the end that every live table scans
 * exactly the rows of its acknowledged commits (no live table lost a file), that no sentinel was
 * deleted, that every {@code SUCCEEDED} purge job left every root its table held empty, and that
 * no job is left pending, running or failed.
 *
 * <p>Seeded: the seed is printed; replay with {@code -Dlethe.test.lifecycle.seed=…}. Longer runs
 * with {@code -Dlethe.test.lifecycle.steps=…} (steps per client, default 48) and
 * {@code -Dlethe.test.lifecycle.epochs=…} (server lives before the last, default 3). Runs on embedded H2 and, when
 * {@code lethe.test.postgres.url} is set, on PostgreSQL.
 */
class LifecycleRandomizedTest {
  private static final String KEY = "q2Vn0CqP3mS0XlT3a3g8mYfH1D8Jw0uBq7c5XW0bE4Y=";
  private static final long RETENTION_MS = 3000;
  /** Margin under the retention deadline within which an undrop must still succeed. */
  private static final long MARGIN_MS = 1000;

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private Backends.Fresh fresh;

  @AfterEach
  void cleanUp() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    if (fresh != null) {
      fresh.drop();
    }
  }

  enum State { LIVE, RETAINED, FREE, PURGING, GONE }

  /**
   * One table entry as the model knows it. A move changes its location or a write path; {@link
   * #roots} keeps every directory it ever wrote into, and {@link #preMove} its metadata file before
   * each set-location.
   */
  static final class Entry {
    final String ns;
    String name;
    String location;
    String dataPath;
    String metadataPath;
    final Set<String> roots = new java.util.LinkedHashSet<>();
    final Map<String, String> preMove = new HashMap<>();
    String metadata;
    final List<String> rows = new ArrayList<>();
    State state = State.LIVE;
    boolean purgeRequested;
    long deadline;

    Entry(String ns, String name, String location) {
      this.ns = ns;
      this.name = name;
      this.location = location;
      roots.add(location);
    }

    boolean current(String root) {
      return root.equals(location) || root.equals(dataPath) || root.equals(metadataPath);
    }

    /**
     * The roots the entry holds (docs/design/0004-a-table-owns-every-root-its-snapshots-use.md): the
     * current ones, and every earlier one under which a snapshot's file (a Parquet data file, an Avro
     * manifest or manifest list) still lies; this test never expires snapshots.
     */
    List<String> held() throws IOException {
      List<String> out = new ArrayList<>();
      for (String r : roots) {
        if (current(r) || holdsSnapshotFiles(r)) {
          out.add(r);
        }
      }
      return out;
    }

    /** Earlier roots the entry still holds. */
    List<String> earlierHeld() throws IOException {
      List<String> out = new ArrayList<>();
      for (String r : held()) {
        if (!current(r)) {
          out.add(r);
        }
      }
      return out;
    }

    TableIdentifier id() {
      return TableIdentifier.of(ns, name);
    }

    @Override
    public String toString() {
      return ns + "." + name + "[" + state + " " + location + (roots.size() > 1 ? " roots " + roots : "") + "]";
    }
  }

  private static boolean holdsSnapshotFiles(String root) throws IOException {
    for (Path f : PurgeTables.files(root)) {
      String n = f.getFileName().toString();
      if (!n.startsWith(".") && (n.endsWith(".parquet") || n.endsWith(".avro"))) {
        return true;
      }
    }
    return false;
  }

  /** Shared across clients and epochs. */
  private final Set<Path> sentinels = ConcurrentHashMap.newKeySet();
  /** "ns.name" → locations dropped with a purge under that name. */
  private final Map<String, Set<String>> purgedUnder = new ConcurrentHashMap<>();
  /** "ns.name" that some drop left without purge (a job under that name may keep its files). */
  private final Set<String> ambiguous = ConcurrentHashMap.newKeySet();
  private final AtomicLong ids = new AtomicLong();
  /** How often each operation (and outcome) ran, printed with the oracle's summary. */
  private final Map<String, java.util.concurrent.atomic.AtomicInteger> ops = new java.util.concurrent.ConcurrentSkipListMap<>();

  private void count(String op) {
    ops.computeIfAbsent(op, k -> new java.util.concurrent.atomic.AtomicInteger()).incrementAndGet();
  }
  private volatile boolean softDelete;
  private volatile PurgeServer server;
  private Path warehouse;

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql"})
  void randomizedLifecycleKeepsAckedCommitsAndOutsideFilesAndEmptiesPurgedLocations(String backend) throws Exception {
    long seed = Long.getLong("lethe.test.lifecycle.seed", new Random().nextLong());
    int steps = Integer.getInteger("lethe.test.lifecycle.steps", 48);
    int epochs = Integer.getInteger("lethe.test.lifecycle.epochs", 3);
    System.out.println("LifecycleRandomizedTest[" + backend + "] seed=" + seed + " (replay with -Dlethe.test.lifecycle.seed="
        + seed + "), steps=" + steps + ", epochs=" + epochs);
    String jdbc = null;
    if (backend.equals("postgresql")) {
      fresh = Backends.createOrSkip(backend);
      jdbc = fresh.jdbcUrl();
    }
    Path work = Path.of(System.getProperty("lethe.it.work-dir", "target/it"));
    Files.createDirectories(work);
    Path dir = Files.createTempDirectory(work, "lifecycle-" + backend + "-");
    Random random = new Random(seed);
    int clients = 2;
    List<Client> all = new ArrayList<>();
    for (int i = 0; i < clients; i++) {
      all.add(new Client(i, new Random(random.nextLong()), i == 1));
    }
    try {
      for (int epoch = 0; epoch < epochs; epoch++) {
        softDelete = random.nextBoolean();
        server = start(dir, jdbc, softDelete);
        log(all, "epoch " + epoch + ": soft delete " + softDelete);
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
          List<Future<?>> running = new ArrayList<>();
          for (Client c : all) {
            int n = steps / epochs;
            running.add(pool.submit(() -> {
              c.run(n);
              return null;
            }));
          }
          for (Future<?> f : running) {
            f.get(10, TimeUnit.MINUTES);
          }
        } finally {
          pool.shutdownNow();
        }
        // SIGKILL, often with purge jobs pending or running
        server.kill();
        count("kill -9");
      }
      softDelete = random.nextBoolean();
      server = start(dir, jdbc, softDelete);
      oracle(all, seed);
    } catch (Throwable t) {
      StringBuilder history = new StringBuilder();
      for (Client c : all) {
        history.append("client ").append(c.index).append(":\n");
        c.history.forEach(h -> history.append("  ").append(h).append('\n'));
      }
      throw new AssertionError("seed " + seed + " (replay with -Dlethe.test.lifecycle.seed=" + seed + "): " + t
          + "\nhistory:\n" + history, t);
    }
  }

  private static void log(List<Client> all, String line) {
    for (Client c : all) {
      c.history.add(line);
    }
  }

  private PurgeServer start(Path dir, String jdbc, boolean soft) throws Exception {
    Map<String, String> keys = new HashMap<>();
    if (jdbc != null) {
      keys.put("lethe.jdbc.url", jdbc);
    }
    keys.put("lethe.iceberg-rest.async-purge.encryption-key", KEY);
    keys.put("lethe.iceberg-rest.async-purge.poll-interval-ms", "100");
    keys.put("lethe.iceberg-rest.async-purge.heartbeat-timeout-ms", "3000");
    keys.put("lethe.entity.soft-delete.enabled", String.valueOf(soft));
    keys.put("lethe.entity.soft-delete.retention-ms", String.valueOf(RETENTION_MS));
    keys.put("lethe.entity.soft-delete.expiry-interval-ms", "500");
    PurgeServer s = PurgeServer.start(dir, AsyncPurgeHttp.configArgs(dir, keys));
    closeables.add(0, s);
    return s;
  }

  private RESTCatalog open(boolean defaultFileIo) {
    if (!defaultFileIo) {
      return AsyncPurgeHttp.client(server.icebergUri(), "main");
    }
    Map<String, String> props = new HashMap<>();
    props.put("uri", server.icebergUri());
    props.put("warehouse", "main");
    RESTCatalog catalog = new RESTCatalog();
    catalog.setConf(new Configuration());
    catalog.initialize("lethe-default-io", props);
    return catalog;
  }

  private synchronized Path sentinelDir(String tableLocation) throws IOException {
    if (warehouse == null) {
      // tables are created at <warehouse>/<namespace>/<name>-<uuid>
      warehouse = Path.of(tableLocation.replaceFirst("^file:(//)?", "")).getParent().getParent();
    }
    Path d = warehouse.resolve("sentinels");
    Files.createDirectories(d);
    return d;
  }

  /** One client: a thread with its own namespace, tables and RESTCatalog. */
  final class Client {
    final int index;
    final Random random;
    final boolean defaultFileIo;
    final String ns;
    final List<Entry> entries = new ArrayList<>();
    final List<String> history = Collections.synchronizedList(new ArrayList<>());
    int names;
    boolean namespaceCreated;
    RESTCatalog catalog;
    SoftDeleteHttp api;

    Client(int index, Random random, boolean defaultFileIo) {
      this.index = index;
      this.random = random;
      this.defaultFileIo = defaultFileIo;
      this.ns = "life" + index;
    }

    void run(int steps) throws Exception {
      catalog = open(defaultFileIo);
      api = new SoftDeleteHttp(server.base(), ns);
      try {
        if (!namespaceCreated) {
          catalog.createNamespace(Namespace.of(ns));
          namespaceCreated = true;
        }
        for (int i = 0; i < steps; i++) {
          step();
        }
      } finally {
        catalog.close();
      }
    }

    private List<Entry> in(State... states) {
      Set<State> s = Set.of(states);
      return entries.stream().filter(e -> s.contains(e.state)).toList();
    }

    private <T> T pick(List<T> list) {
      return list.get(random.nextInt(list.size()));
    }

    private String newName() {
      return "t" + (names++);
    }

    private void step() throws Exception {
      List<Entry> live = in(State.LIVE);
      int roll = random.nextInt(120);
      if (!live.isEmpty() && roll >= 100) {
        if (roll < 110) {
          move(pick(live));
        } else {
          squat();
        }
      } else if (live.isEmpty() || roll < 12) {
        create();
      } else if (roll < 40) {
        append(pick(live));
      } else if (roll < 46) {
        statisticsOutside(pick(live));
      } else if (roll < 54) {
        rename(pick(live));
      } else if (roll < 72) {
        drop(pick(live));
      } else if (roll < 84) {
        register();
      } else if (roll < 92 && !in(State.RETAINED).isEmpty()) {
        undrop(pick(in(State.RETAINED)));
      } else if (!in(State.RETAINED).isEmpty()) {
        purgeNow(pick(in(State.RETAINED)));
      } else {
        append(pick(live));
      }
    }

    private void create() {
      String name = newName();
      Table t = catalog.buildTable(TableIdentifier.of(ns, name), PurgeTables.SCHEMA).create();
      Entry e = new Entry(ns, name, t.location());
      e.metadata = metadata(t);
      entries.add(e);
      history.add("create " + e);
      count("create");
    }

    private String metadata(Table t) {
      return ((HasTableOperations) t).operations().current().metadataFileLocation();
    }

    private void append(Entry e) throws IOException {
      Table t = catalog.loadTable(e.id());
      long first = ids.getAndAdd(100);
      int rows = 1 + random.nextInt(3);
      boolean outside = random.nextInt(4) == 0;
      if (outside) {
        Path file = sentinelDir(e.location).resolve("data-" + UUID.randomUUID() + ".parquet");
        DataFile data = writeOutside(t, file, first, rows);
        t.newAppend().appendFile(data).commit();
        sentinels.add(file);
      } else {
        PurgeTables.append(t, first, rows, "a");
      }
      for (long i = first; i < first + rows; i++) {
        e.rows.add(i + ":a");
      }
      e.metadata = metadata(catalog.loadTable(e.id()));
      count(outside ? "append outside" : "append");
      history.add("append " + rows + (outside ? " outside" : "") + " to " + e + " snapshot "
          + catalog.loadTable(e.id()).currentSnapshot().snapshotId());
    }

    private DataFile writeOutside(Table t, Path file, long first, int rows) throws IOException {
      OutputFile out = t.io().newOutputFile(file.toString());
      DataWriter<Record> writer = new GenericFileWriterFactory.Builder(t).dataFileFormat(FileFormat.PARQUET).build()
          .newDataWriter(EncryptedFiles.plainAsEncryptedOutput(out), t.spec(), null);
      try (writer) {
        for (long i = first; i < first + rows; i++) {
          GenericRecord r = GenericRecord.create(PurgeTables.SCHEMA);
          r.setField("id", i);
          r.setField("category", "a");
          writer.write(r);
        }
      }
      return writer.toDataFile();
    }

    private void statisticsOutside(Entry e) throws IOException {
      Table t = catalog.loadTable(e.id());
      Snapshot current = t.currentSnapshot();
      if (current == null) {
        append(e);
        return;
      }
      Path file = sentinelDir(e.location).resolve("stats-" + UUID.randomUUID() + ".puffin");
      OutputFile stats = t.io().newOutputFile(file.toString());
      PuffinWriter puffin = Puffin.write(stats).createdBy("lethe-it").build();
      try (puffin) {
        puffin.add(new Blob("lethe-it-blob", List.of(1), current.snapshotId(), current.sequenceNumber(),
            ByteBuffer.wrap("ndv".getBytes(StandardCharsets.UTF_8))));
      }
      t.updateStatistics().setStatistics(new GenericStatisticsFile(current.snapshotId(), stats.location(),
          puffin.fileSize(), puffin.footerSize(), GenericBlobMetadata.from(puffin.writtenBlobsMetadata()))).commit();
      sentinels.add(file);
      e.metadata = metadata(catalog.loadTable(e.id()));
      history.add("statistics outside " + file + " for " + e);
      count("statistics outside");
    }

    private void rename(Entry e) {
      String to = newName();
      catalog.renameTable(e.id(), TableIdentifier.of(ns, to));
      history.add("rename " + e + " to " + to);
      count("rename");
      e.name = to;
    }

    private void drop(Entry e) throws Exception {
      int variant = random.nextInt(4);
      List<String> heldAtDrop = e.held();
      String key = ns + "." + e.name;
      HttpResponse<String> r;
      String what;
      switch (variant) {
        case 0 -> {
          what = "metadata-only";
          r = api.icebergDrop(ns, e.name, false);
        }
        case 1 -> {
          what = "sync purge";
          r = AsyncPurgeHttp.drop(server.base(), "main", ns, e.name, null);
        }
        case 2 -> {
          what = "async purge";
          r = AsyncPurgeHttp.drop(server.base(), "main", ns, e.name, true);
        }
        default -> {
          what = "management purge";
          r = api.drop(e.name, "?purgeRequested=true");
        }
      }
      history.add("drop (" + what + ", soft " + softDelete + ") " + e + " -> " + r.statusCode() + " "
          + r.headers().firstValue("X-Lethe-Purge-State").orElse(""));
      assertThat(r.statusCode()).as(what + " drop of " + e + ": " + r.body()).isBetween(200, 204);
      count("drop " + what + (softDelete ? " (soft)" : ""));
      boolean purge = variant != 0;
      e.purgeRequested = purge;
      if (purge) {
        purgedUnder.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).addAll(heldAtDrop);
      } else {
        ambiguous.add(key);
      }
      if (softDelete) {
        e.state = State.RETAINED;
        e.deadline = SoftDeleteHttp.json(api.load(e.name)).get("retentionExpiresAt").asLong();
      } else {
        e.state = purge ? State.PURGING : State.FREE;
        if (variant == 1) {
          assertThat(r.headers().firstValue("X-Lethe-Purge-State")).as("sync purge of " + e).hasValue("SUCCEEDED");
          for (String root : heldAtDrop) {
            assertThat(PurgeTables.files(root)).as("a SUCCEEDED sync purge of " + e + " leaves " + root + " empty").isEmpty();
          }
        }
      }
    }

    /**
     * Moves a live table: set-location to a new directory, or a new write.data.path or
     * write.metadata.path; half the time appends right after, so files land under the new root
     * while the snapshots still name the old one's.
     */
    private void move(Entry e) throws IOException {
      Table t = catalog.loadTable(e.id());
      Path warehouse = sentinelDir(e.location).getParent();
      String before = metadata(t);
      String dir;
      String what;
      switch (random.nextInt(3)) {
        case 0 -> {
          what = "set-location";
          dir = warehouse.resolve(ns).resolve("moved-" + UUID.randomUUID()).toString();
          t.updateLocation().setLocation(dir).commit();
          e.preMove.put(e.location, before);
          e.location = dir;
        }
        case 1 -> {
          what = "write.data.path";
          dir = warehouse.resolve("paths").resolve("data-" + UUID.randomUUID()).toString();
          t.updateProperties().set("write.data.path", dir).commit();
          e.dataPath = dir;
        }
        default -> {
          what = "write.metadata.path";
          dir = warehouse.resolve("paths").resolve("meta-" + UUID.randomUUID()).toString();
          t.updateProperties().set("write.metadata.path", dir).commit();
          e.metadataPath = dir;
        }
      }
      e.roots.add(dir);
      e.metadata = metadata(catalog.loadTable(e.id()));
      history.add("move (" + what + ") " + e + " to " + dir);
      count("move " + what);
      if (random.nextBoolean()) {
        append(e);
      }
    }

    /**
     * Tries to take an earlier root a live table's snapshots still use: a create there, a register of
     * the table's pre-move metadata, or a move of another table into it. Each must be refused, and
     * the table must still scan.
     */
    private void squat() throws IOException {
      List<Entry> candidates = new ArrayList<>();
      for (Entry e : in(State.LIVE)) {
        if (!e.earlierHeld().isEmpty()) {
          candidates.add(e);
        }
      }
      if (candidates.isEmpty()) {
        move(pick(in(State.LIVE)));
        return;
      }
      Entry e = pick(candidates);
      String root = pick(e.earlierHeld());
      List<Entry> others = in(State.LIVE).stream().filter(o -> o != e).toList();
      int variant = random.nextInt(3);
      if (variant == 1 && !e.preMove.containsKey(root)) {
        variant = 0;
      }
      if (variant == 2 && others.isEmpty()) {
        variant = 0;
      }
      String what;
      Exception refused;
      switch (variant) {
        case 0 -> {
          what = "create at";
          refused = refusal(() -> catalog.buildTable(TableIdentifier.of(ns, newName()), PurgeTables.SCHEMA)
              .withLocation(root).create());
          assertThat(refused).as(what + " " + root + ", held by " + e).isInstanceOf(AlreadyExistsException.class);
        }
        case 1 -> {
          what = "register pre-move metadata of";
          refused = refusal(() -> catalog.registerTable(TableIdentifier.of(ns, newName()), e.preMove.get(root)));
          assertThat(refused).as(what + " " + root + ", held by " + e).isInstanceOf(AlreadyExistsException.class);
        }
        default -> {
          Entry other = pick(others);
          what = "move " + other + " into";
          String before = metadata(catalog.loadTable(other.id()));
          refused = refusal(() -> catalog.loadTable(other.id()).updateLocation().setLocation(root).commit());
          assertThat(refused).as(what + " " + root + ", held by " + e).isInstanceOf(BadRequestException.class);
          assertThat(metadata(catalog.loadTable(other.id()))).as("a refused move changes nothing").isEqualTo(before);
        }
      }
      history.add("squat (" + what + ") " + root + " of " + e + " -> refused");
      count("squat " + what.replaceFirst(" .* into", " into") + " refused");
      assertThat(SoftDeleteHttp.rows(catalog.loadTable(e.id()))).as(e + " after a refused squat").isEqualTo(sorted(e.rows));
    }

    private Exception refusal(Runnable r) {
      try {
        r.run();
        return null;
      } catch (RuntimeException ex) {
        return ex;
      }
    }

    /** Registers the last metadata file of some entry under a new name, spelled one of four ways. */
    private void register() {
      List<Entry> candidates = entries.stream().filter(e -> e.metadata != null && e.state != State.GONE).toList();
      if (candidates.isEmpty()) {
        create();
        return;
      }
      Entry source = pick(candidates);
      String path = Path.of(source.metadata.replaceFirst("^file:(//)?", "")).toString();
      String spelled = switch (random.nextInt(4)) {
        case 0 -> path;
        case 1 -> "file:" + path;
        case 2 -> "file://" + path;
        default -> "file://localhost" + path;
      };
      long now = System.currentTimeMillis();
      List<Entry> holders = entries.stream().filter(e -> e.location.equals(source.location)
          && (e.state == State.LIVE || e.state == State.RETAINED || e.state == State.PURGING)).toList();
      // a retained holder past its deadline may have been expired meanwhile (its claim released)
      boolean mustFail = holders.stream().anyMatch(h -> h.state == State.LIVE
          || (h.state == State.RETAINED && now < h.deadline - MARGIN_MS) || h.state == State.PURGING);
      boolean mustSucceed = holders.isEmpty() && source.state == State.FREE;
      String name = newName();
      try {
        Table t = catalog.registerTable(TableIdentifier.of(ns, name), spelled);
        history.add("register " + spelled + " as " + name + " -> ok");
        count("register ok");
        assertThat(mustFail).as("register of " + spelled + " while " + holders + " hold its location succeeded").isFalse();
        for (Entry h : holders) {
          h.state = State.GONE; // a retained holder past its deadline: expired
        }
        Entry e = new Entry(ns, name, t.location());
        assertThat(Path.of(e.location.replaceFirst("^file:(//)?", "")).toString())
            .isEqualTo(Path.of(source.location.replaceFirst("^file:(//)?", "")).toString());
        e.rows.addAll(source.rows);
        e.metadata = metadata(t);
        entries.remove(source);
        source.state = State.GONE;
        entries.add(e);
        try {
          assertThat(SoftDeleteHttp.rows(t)).as("registered " + e).isEqualTo(sorted(e.rows));
        } catch (IOException io) {
          throw new UncheckedIOException(io);
        }
      } catch (AlreadyExistsException expected) {
        history.add("register " + spelled + " as " + name + " -> 409 " + expected.getMessage());
        count("register 409");
        assertThat(mustSucceed).as("register of " + spelled + " (nothing holds it): " + expected.getMessage()).isFalse();
      } catch (RuntimeException other) {
        history.add("register " + spelled + " as " + name + " -> " + other);
        count("register other failure");
        // only a location whose purge may have ended (its metadata file deleted) may fail otherwise
        if (mustSucceed || holders.stream().noneMatch(h -> h.state == State.PURGING || h.state == State.RETAINED)) {
          throw other;
        }
      }
    }

    private void undrop(Entry e) throws Exception {
      long now = System.currentTimeMillis();
      HttpResponse<String> r = api.undrop(e.name);
      history.add("undrop " + e + " -> " + r.statusCode() + " " + r.body());
      count("undrop " + r.statusCode());
      if (r.statusCode() == 200) {
        e.state = State.LIVE;
        assertThat(SoftDeleteHttp.rows(catalog.loadTable(e.id()))).as("undropped " + e).isEqualTo(sorted(e.rows));
      } else {
        assertThat(now).as("undrop of " + e + " within its window: " + r.body()).isGreaterThan(e.deadline - MARGIN_MS);
        assertThat(r.statusCode()).as(r.body()).isIn(404, 410);
        e.state = e.purgeRequested ? State.PURGING : State.FREE;
        if (!e.purgeRequested) {
          // kept files: the record may still be retained (410) until the timer finalizes it
          e.state = State.GONE;
        }
      }
    }

    private void purgeNow(Entry e) throws Exception {
      HttpResponse<String> r = api.purge(e.name);
      history.add("purge-now " + e + " -> " + r.statusCode() + " " + r.body());
      count("purge-now " + r.statusCode());
      if (e.purgeRequested) {
        assertThat(r.statusCode()).as("purge-now of " + e + ": " + r.body()).isIn(202, 404, 410);
      } else {
        // docs/soft-delete.md: 200 when the record is removed at once (files kept)
        assertThat(r.statusCode()).as("purge-now of " + e + ": " + r.body()).isIn(200, 404, 410);
      }
      if (!e.purgeRequested) {
        ambiguous.add(ns + "." + e.name);
      }
      e.state = e.purgeRequested ? State.PURGING : State.GONE;
    }
  }

  private static List<String> sorted(List<String> rows) {
    List<String> s = new ArrayList<>(rows);
    s.sort(null);
    return s;
  }

  private void oracle(List<Client> all, long seed) throws Exception {
    String base = server.base();
    await("every cleanup job to end").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).until(() -> {
      JsonNode jobs = AsyncPurgeHttp.cleanups(base, "main", "");
      for (JsonNode j : jobs) {
        String s = j.get("state").asText();
        if (s.equals("PENDING") || s.equals("RUNNING")) {
          return false;
        }
      }
      return true;
    });
    JsonNode jobs = AsyncPurgeHttp.cleanups(base, "main", "");
    List<String> failures = new ArrayList<>();
    int succeeded = 0;
    int checkedLocations = 0;
    for (JsonNode j : jobs) {
      String state = j.get("state").asText();
      String key = String.join(".", AsyncPurgeHttp.JSON.convertValue(j.get("namespace"), String[].class)) + "." + j.get("name").asText();
      if (!state.equals("SUCCEEDED")) {
        failures.add("job " + j + " ended " + state);
        continue;
      }
      succeeded++;
      if (ambiguous.contains(key)) {
        continue;
      }
      for (String location : purgedUnder.getOrDefault(key, Set.of())) {
        checkedLocations++;
        Set<Path> left = PurgeTables.files(location);
        if (!left.isEmpty()) {
          failures.add("SUCCEEDED job " + j.get("id") + " for " + key + " left " + left);
        }
      }
    }
    Set<Path> missing = new HashSet<>();
    for (Path s : sentinels) {
      if (!Files.exists(s)) {
        missing.add(s);
      }
    }
    if (!missing.isEmpty()) {
      failures.add("files outside every table were deleted: " + missing);
    }
    int liveTables = 0;
    long rows = 0;
    try (RESTCatalog reader = open(true)) {
      for (Client c : all) {
        for (Entry e : c.entries) {
          if (e.state != State.LIVE) {
            continue;
          }
          liveTables++;
          rows += e.rows.size();
          try {
            List<String> scanned = SoftDeleteHttp.rows(reader.loadTable(e.id()));
            if (!scanned.equals(sorted(e.rows))) {
              failures.add("live table " + e + " scans " + scanned + ", acked " + sorted(e.rows));
            }
          } catch (RuntimeException | IOException ex) {
            failures.add("live table " + e + " does not load or scan: " + ex);
          }
        }
      }
    }
    System.out.println("LifecycleRandomizedTest seed=" + seed + ": " + liveTables + " live tables, " + rows + " acked rows, "
        + sentinels.size() + " sentinels, " + jobs.size() + " jobs (" + succeeded + " SUCCEEDED, " + checkedLocations
        + " purged locations checked); operations " + ops);
    assertThat(failures).as("oracle").isEmpty();
  }
}
