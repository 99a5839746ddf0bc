package dev.lethe.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.Conflict;
import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.Deleted;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Page;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.format.CorruptRecordException;
import dev.lethe.store.core.format.RecordJson;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What the JDBC substrate adds to the conformance suite: real locking, byte-exact keys, its layout. */
class JdbcStoreTest {

  @TempDir Path tmp;
  private final FreshStoreDatabases databases = new FreshStoreDatabases();
  private final List<JdbcStore> opened = new ArrayList<>();
  private final RecordKey key = new RecordKey("ns", "col", "t");

  @AfterEach
  void close() throws Exception {
    opened.forEach(JdbcStore::close);
    databases.close();
  }

  private JdbcStore open(String url) {
    JdbcStore s = JdbcStore.open(url, 8, 32, Clock.systemUTC());
    opened.add(s);
    return s;
  }

  private static Record draft(RecordKey k, String text) {
    return Record.draft(k, Kind.DOCUMENT, Body.Inline.text(text), Meta.byAuthor("alice"));
  }

  private static Record committed(PutResult r) {
    assertThat(r).isInstanceOf(Committed.class);
    return ((Committed) r).record();
  }

  private static <T> List<T> race(int n, java.util.function.IntFunction<T> action) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int id = i;
        futures.add(pool.submit(() -> {
          start.await();
          return action.apply(id);
        }));
      }
      start.countDown();
      List<T> out = new ArrayList<>();
      for (Future<T> f : futures) {
        out.add(f.get(60, TimeUnit.SECONDS));
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void keysThatDifferOnlyByATrailingSpaceAreDifferentKeys(String backend) throws Exception {
    String url = databases.create(backend, tmp);
    JdbcStore store = open(url);
    // A row no store call could write (keys have no spaces): "t " beside the key "t".
    Record padded = draft(new RecordKey("ns", "col", "x"), "padded");
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement s = c.prepareStatement("INSERT INTO lethe_store_record (key_namespace, key_collection,"
            + " key_id, kind, revision_counter, revision_hash, deleted_at, record_json) VALUES (?, ?, ?, ?, ?, ?, NULL, ?)")) {
      s.setString(1, "ns");
      s.setString(2, "col");
      s.setString(3, "t ");
      s.setString(4, "document");
      s.setLong(5, 1);
      s.setString(6, padded.revision().hash());
      s.setString(7, new RecordJson().format(padded).replace("ns/col/x", "ns/col/t"));
      s.executeUpdate();
    }
    assertThat(store.getRaw(key)).isEmpty();
    Record t = committed(store.put(draft(key, "mine"), Optional.empty()));
    assertThat(t.revision().counter()).isEqualTo(1);
    assertThat(store.get(key)).contains(t);
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM lethe_store_record WHERE key_id = 't'")) {
      rs.next();
      assertThat(rs.getInt(1)).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void sixteenWritersOnTwoPoolsWithTheSameExpectedRevisionCommitExactlyOnce(String backend) throws Exception {
    String url = databases.create(backend, tmp);
    JdbcStore a = open(url);
    JdbcStore b = open(url); // a second server process on the same database
    Record base = committed(a.put(draft(key, "base"), Optional.empty()));
    List<PutResult> results = race(16, i ->
        (i % 2 == 0 ? a : b).put(draft(key, "writer " + i), Optional.of(base.revision())));
    List<Record> winners = results.stream().filter(r -> r instanceof Committed).map(r -> ((Committed) r).record()).toList();
    assertThat(winners).hasSize(1);
    assertThat(results.stream().filter(r -> r instanceof Conflict)).hasSize(15);
    assertThat(b.getRaw(key)).contains(winners.get(0));
    assertThat(winners.get(0).revision().counter()).isEqualTo(2);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void sixteenCreatorsOfAnAbsentKeyCommitExactlyOnceAndTheOthersSeeTheWinner(String backend) throws Exception {
    String url = databases.create(backend, tmp);
    JdbcStore a = open(url);
    JdbcStore b = open(url);
    List<PutResult> results = race(16, i -> (i % 2 == 0 ? a : b).put(draft(key, "creator " + i), Optional.empty()));
    List<Record> winners = results.stream().filter(r -> r instanceof Committed).map(r -> ((Committed) r).record()).toList();
    assertThat(winners).hasSize(1);
    assertThat(results).filteredOn(r -> r instanceof Conflict)
        .hasSize(15)
        .allSatisfy(r -> assertThat(((Conflict) r).current()).isEqualTo(winners.get(0)));
    assertThat(a.getRaw(key)).contains(winners.get(0));
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aPurgeRacingARecreationNeverLosesTheRecreatedRecord(String backend) throws Exception {
    String url = databases.create(backend, tmp);
    JdbcStore a = open(url);
    JdbcStore b = open(url);
    for (int round = 0; round < 20; round++) {
      RecordKey k = new RecordKey("ns", "col", "r" + round);
      Record live = committed(a.put(draft(k, "v1"), Optional.empty()));
      Record t = ((Deleted) a.delete(k, Optional.of(live.revision()))).tombstone().orElseThrow();
      List<Object> results = race(2, i -> i == 0
          ? a.purge(k, Optional.of(t.revision()))
          : b.put(draft(k, "again"), Optional.empty()));
      DeleteResult purge = (DeleteResult) results.get(0);
      Record recreated = committed((PutResult) results.get(1));
      assertThat(a.get(k)).contains(recreated);
      if (purge instanceof Conflict c) {
        // the recreation came first: it descends from the tombstone, and the purge left it alone
        assertThat(c.current()).isEqualTo(recreated);
        assertThat(recreated.parent()).isEqualTo(t.revision());
      } else {
        // the purge came first: the key was absent, so the put is a first version
        assertThat(recreated.revision().counter()).isEqualTo(1);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aScanFetchesTheJsonOfOnlyTheRowsThatFitTheByteBudget(String backend) throws Exception {
    // docs/design/0110-pages-cut-by-bytes.md: the scan measures rows before fetching their JSON;
    // each record is 2 bytes bigger than the one before (é is 2 UTF-8 bytes)
    String url = databases.create(backend, tmp);
    JdbcStore store = open(url);
    List<Record> written = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      written.add(committed(store.put(draft(new RecordKey("ns", "col", "r" + (10 + i)), "é".repeat(5000 + i)),
          Optional.empty())));
    }
    long size = Page.sizeOf(written.get(0));
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT OCTET_LENGTH(record_json) FROM lethe_store_record WHERE key_id = 'r10'")) {
      rs.next();
      assertThat(rs.getLong(1)).as("the database's length is Page.sizeOf").isEqualTo(size);
    }
    try (Connection c = DriverManager.getConnection(url)) {
      RecordTable table = new RecordTable();
      List<Record> got = table.scan(c, KeyPrefix.all(), null, Page.MAX_LIMIT + 1, 2 * size + 100, false);
      assertThat(got).containsExactlyElementsOf(written.subList(0, 3));
      got = table.scan(c, KeyPrefix.all(), written.get(2).key(), Page.MAX_LIMIT + 1, 1, true);
      assertThat(got).containsExactly(written.get(3));
      got = table.scan(c, KeyPrefix.all(), written.get(16).key(), Page.MAX_LIMIT + 1, Page.MAX_BYTES, false);
      assertThat(got).containsExactlyElementsOf(written.subList(17, 20));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void anUnreadableRowFailsReadsOfItsKeyOnlyAndNamesTheRow(String backend) throws Exception {
    String url = databases.create(backend, tmp);
    JdbcStore store = open(url);
    committed(store.put(draft(key, "v"), Optional.empty()));
    RecordKey other = new RecordKey("ns", "col", "other");
    Record fine = committed(store.put(draft(other, "v"), Optional.empty()));
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      s.executeUpdate("UPDATE lethe_store_record SET record_json = '{\"format\":1,' WHERE key_id = 't'");
    }
    assertThatThrownBy(() -> store.getRaw(key)).isInstanceOf(CorruptRecordException.class)
        .hasMessageContaining("lethe_store_record row (ns, col, t)");
    assertThatThrownBy(() -> store.put(draft(key, "over"), Optional.empty()))
        .isInstanceOf(CorruptRecordException.class);
    assertThat(store.get(other)).contains(fine);
    assertThatThrownBy(() -> store.list(KeyPrefix.all())).isInstanceOf(CorruptRecordException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void theStoreMigratesBesideOtherTablesWithAHistoryTableOfItsOwnAndReopens(String backend) throws Exception {
    String url = databases.create(backend, tmp);
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE someone_elses (id INT PRIMARY KEY)");
      s.execute("CREATE TABLE lethe_schema_history (installed_rank INT PRIMARY KEY)");
    }
    JdbcStore first = open(url);
    Record r = committed(first.put(draft(key, "v"), Optional.empty()));
    first.close();
    JdbcStore again = open(url);
    assertThat(again.get(key)).contains(r);
    String table = backend.equals("h2") ? "\"" + JdbcStore.HISTORY_TABLE + "\"" : JdbcStore.HISTORY_TABLE;
    List<String> applied = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT * FROM " + table)) {
      while (rs.next()) {
        applied.add(rs.getString("version") + ":" + rs.getBoolean("success"));
      }
    }
    // the baseline, then the store's V1 and V2 (the ledger); H2 also records the schema Flyway found, version null
    assertThat(applied).filteredOn(v -> !v.startsWith("null:")).containsExactly("0:true", "1:true", "2:true");
  }

  @Test
  void anUnreachableDatabaseIsAnIoErrorThatNeverShowsThePassword() {
    assertThatThrownBy(() -> JdbcStore.open("jdbc:postgresql://127.0.0.1:1/x?user=u&password=hunter2", 1, 32,
        Clock.systemUTC()))
        .isInstanceOf(UncheckedIOException.class)
        .satisfies(e -> {
          assertThat(e.getMessage()).contains("password=***").doesNotContain("hunter2");
          assertThat(e.getCause().getMessage()).doesNotContain("hunter2");
        });
  }

  @Test
  void anUnsupportedUrlIsRejectedNamingOnlyItsScheme() {
    assertThatThrownBy(() -> JdbcStore.open("jdbc:sqlite:/tmp/x?password=hunter2", 1, 32, Clock.systemUTC()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jdbc:sqlite:").hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> JdbcStore.open("jdbc:h2:mem:x", 1, 0, Clock.systemUTC()))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("ancestor cap must be at least 1");
  }

  @Test
  void redactionCoversQueryParametersH2SettingsAndUserInfo() {
    assertThat(JdbcUrls.redact("jdbc:postgresql://h/db?user=u&password=p&ssl=true"))
        .isEqualTo("jdbc:postgresql://h/db?user=u&password=***&ssl=true");
    assertThat(JdbcUrls.redact("jdbc:h2:file:/x;USER=sa;PASSWORD=p")).isEqualTo("jdbc:h2:file:/x;USER=sa;PASSWORD=***");
    assertThat(JdbcUrls.redact("jdbc:mariadb://u:p@h:3306/db")).isEqualTo("jdbc:mariadb://***@h:3306/db");
  }

  /**
   * A driver that cannot parse a URL may quote any piece of it: MariaDB's connector answered
   * {@code jdbc:mariadb://root:hunter2@127.0.0.1:3307/x} with "Incorrect port value : hunter2@127.0.0.1",
   * which the CLI printed. Every password a URL carries is replaced wherever it appears.
   */
  @Test
  void aDriversMessageQuotingThePasswordNeverShowsIt() {
    for (String url : List.of("jdbc:mariadb://root:hunter2@127.0.0.1:3307/x",
        "jdbc:postgresql://127.0.0.1:1/x?user=u&password=hunter2", "jdbc:postgresql://127.0.0.1:1/x?password=hunter%32")) {
      assertThatThrownBy(() -> JdbcStore.open(url, 1, 32, Clock.systemUTC())).as(url)
          .isInstanceOf(UncheckedIOException.class)
          .satisfies(e -> {
            assertThat(e.getMessage()).doesNotContain("hunter");
            assertThat(e.getCause().getMessage()).doesNotContain("hunter");
          });
    }
    assertThat(JdbcUrls.redact("Incorrect port value : hunter2@127.0.0.1", "jdbc:mariadb://root:hunter2@127.0.0.1:3307/x"))
        .isEqualTo("Incorrect port value : ***@127.0.0.1");
  }

  /**
   * In a message a URL ends at whitespace: redacting "…password=s3cret: Connection … refused" must
   * keep the cause after the URL (lethe server printed only the URL and lost why it could not start).
   */
  @Test
  void redactingAMessageKeepsWhatFollowsTheUrl() {
    String url = "jdbc:postgresql://127.0.0.1:1/x?user=u&password=s3cret";
    assertThat(JdbcUrls.redact("Cannot open store " + url + ": Connection to 127.0.0.1:1 refused.", url))
        .isEqualTo("Cannot open store jdbc:postgresql://127.0.0.1:1/x?user=u&password=***: Connection to 127.0.0.1:1 refused.");
    assertThat(JdbcUrls.redact("at jdbc:mariadb://root:pw@h:3306/db: Access denied", "jdbc:h2:mem:x"))
        .isEqualTo("at jdbc:mariadb://***@h:3306/db: Access denied");
  }
}
