package dev.lethe.store.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.RawPut;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.blob.BlobStore;
import dev.lethe.store.core.planner.Plan;
import dev.lethe.store.core.planner.RawPutPlanner;
import dev.lethe.store.core.substrate.PlannedStore;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Optional;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JDBC substrate (docs/design/0100-jdbc-store-substrate.md):
 * one row per record in {@code lethe_store_record} on H2, PostgreSQL or MariaDB, blobs in {@code
 * lethe_store_blob} of the same database.
 *
 * <p>Every write is one transaction: {@code SELECT … FOR UPDATE} of the key's row, the core
 * planner's decision on what it read, then the plan's {@code UPDATE}/{@code DELETE} under that
 * row lock, or an {@code INSERT} when the key had no row. Locking an absent row locks nothing, so
 * "must not exist" rests on the primary key: of two transactions inserting the same key one
 * fails, rolls back, and re-runs from its read, now seeing the winner's row. The same holds for
 * deadlock victims and serialization failures, up to {@value #MAX_ATTEMPTS} attempts. Several
 * processes on one database therefore serve one store safely. Transactions run at READ COMMITTED.
 *
 * <p>On open, Flyway applies the vendor's migrations ({@code db/store-migration/<vendor>}) with
 * the history table {@code lethe_store_schema_history}, so a store can share a database (and
 * schema) with the catalog. Close the store to close its connection pool.
 *
 * <p>Thread-safe.
 */
public final class JdbcStore extends PlannedStore implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(JdbcStore.class);

  /** Flyway's history table of the store's migrations. */
  public static final String HISTORY_TABLE = "lethe_store_schema_history";
  /** How often a write that lost a race is re-run from its read before it fails. */
  public static final int MAX_ATTEMPTS = 8;
  /** Raw puts per transaction of {@link #putRawBatch}. */
  public static final int BATCH_CHUNK = 500;

  private final HikariDataSource ds;
  private final JdbcVendor vendor;
  private final String url;
  private final RecordTable records = new RecordTable();
  private final JdbcBlobStore blobs;
  private final JdbcLedger ledger;

  private JdbcStore(HikariDataSource ds, JdbcVendor vendor, String redactedUrl, int cap, Clock clock) {
    super(cap, clock);
    this.ds = ds;
    this.vendor = vendor;
    this.url = redactedUrl;
    this.blobs = new JdbcBlobStore(ds, vendor, clock, redactedUrl);
    this.ledger = new JdbcLedger(ds, clock, redactedUrl);
  }

  /**
   * Opens a connection pool on {@code jdbcUrl} and applies pending migrations.
   *
   * @param jdbcUrl {@code jdbc:h2:…}, {@code jdbc:postgresql://…} or {@code jdbc:mariadb://…},
   *     credentials (if any) as URL parameters; never logged or put in a message
   * @param maxPoolSize the most pooled connections; below 2 counts as 2
   * @param ancestorCap ancestors kept per record, at least 1
   * @param clock stamps created, updated, deletedAt and blob times
   * @throws IllegalArgumentException for an unsupported URL or a cap below 1 (nothing is opened)
   * @throws java.io.UncheckedIOException if the database cannot be reached or migrated; the
   *     message names the URL without credentials
   */
  public static JdbcStore open(String jdbcUrl, int maxPoolSize, int ancestorCap, Clock clock) {
    return open(jdbcUrl, null, null, maxPoolSize, ancestorCap, clock);
  }

  /**
   * As {@link #open(String, int, int, Clock)}, with the credentials given apart from the URL (as
   * the catalog's {@code lethe.jdbc.user} / {@code lethe.jdbc.password} are).
   *
   * @param user database user, null for the URL's own
   * @param password its password, null for none; never logged or put in a message
   */
  public static JdbcStore open(String jdbcUrl, String user, String password, int maxPoolSize, int ancestorCap,
      Clock clock) {
    JdbcVendor vendor = JdbcVendor.of(jdbcUrl);
    dev.lethe.store.core.ancestry.Ancestry.checkCap(ancestorCap);
    String redacted = JdbcUrls.redact(jdbcUrl);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    if (user != null) {
      config.setUsername(user);
    }
    if (password != null) {
      config.setPassword(password);
    }
    // at least 2: Flyway holds one connection for its lock while it migrates on another
    config.setMaximumPoolSize(Math.max(2, maxPoolSize));
    config.setMinimumIdle(1);
    config.setPoolName("lethe-store");
    config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
    config.setAutoCommit(true);
    HikariDataSource ds;
    try {
      ds = new HikariDataSource(config);
    } catch (RuntimeException e) {
      throw new java.io.UncheckedIOException("Cannot open store " + redacted,
          new IOException(describe(e, jdbcUrl), e));
    }
    try {
      Flyway.configure()
          .dataSource(ds)
          .locations(vendor.migrationLocation())
          .table(HISTORY_TABLE)
          // a database that already holds other tables (the catalog's) is fine: start from version 0
          .baselineOnMigrate(true)
          .baselineVersion("0")
          .load()
          .migrate();
    } catch (RuntimeException e) {
      ds.close();
      throw new java.io.UncheckedIOException("Cannot migrate store " + redacted,
          new IOException(describe(e, jdbcUrl), e));
    }
    LOG.debug("Opened store {} ({})", redacted, vendor);
    return new JdbcStore(ds, vendor, redacted, ancestorCap, clock);
  }

  private static String describe(Throwable e, String jdbcUrl) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String m = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    return JdbcUrls.redact(m.lines().findFirst().orElse(m), jdbcUrl);
  }

  /** The store's ledger, in the tables of migration V2. */
  @Override
  public dev.lethe.store.core.ledger.Ledger ledger() {
    return ledger;
  }

  /** The database family of this store. */
  public JdbcVendor vendor() {
    return vendor;
  }

  @Override
  protected <R> R apply(RecordKey key, Planner<R> planner) {
    for (int attempt = 1; ; attempt++) {
      try (Connection c = ds.getConnection()) {
        c.setAutoCommit(false);
        try {
          Optional<Record> stored = records.select(c, key, true);
          Plan<R> plan = planner.plan(stored);
          if (plan instanceof Plan.Write<R> w) {
            if (stored.isPresent()) {
              records.update(c, w.record());
            } else {
              records.insert(c, w.record());
            }
          } else if (plan instanceof Plan.Remove<R> r) {
            if (r.logged() != null) {
              JdbcLedger.append(c, r.logged()); // same transaction (docs/design/0151-purge-log.md)
            }
            records.delete(c, r.key());
          }
          c.commit();
          return plan.result();
        } catch (SQLException e) {
          c.rollback();
          if (attempt < MAX_ATTEMPTS && vendor.lostRace(e)) {
            LOG.debug("Write of {} lost a race (attempt {}): {}", key, attempt, e.getSQLState());
            continue;
          }
          throw e;
        } catch (RuntimeException e) {
          c.rollback();
          throw e;
        }
      } catch (SQLException e) {
        throw SqlFailure.of("Cannot write " + key, url, e);
      }
    }
  }

  /**
   * Raw puts in one transaction per chunk of {@value #BATCH_CHUNK} items
   * (docs/design/0115-batched-raw-writes.md): one {@code SELECT … FOR UPDATE} locks the chunk's
   * rows, {@link RawPutPlanner} decides each item from its key's row exactly as {@link #putRaw}
   * would (an item naming a key an earlier item wrote is planned from that write), then the
   * writes go as one JDBC batch of inserts and one of updates, and the chunk commits. A conflict
   * or NotFound is an item's result and does not stop the others. A lost race (a concurrent insert
   * of a key the chunk saw absent, a deadlock) rolls the chunk back and re-runs it from its read,
   * up to {@value #MAX_ATTEMPTS} times. Chunks commit one after another: a failure thrown in a
   * later chunk leaves the earlier ones written.
   */
  @Override
  protected List<PutResult> writeRawBatch(List<RawPut> items) {
    // PlannedStore.putRawBatch has refused an invalid item, or one naming a blob the store lacks,
    // before anything is written, and refreshed every named blob
    List<PutResult> out = new ArrayList<>(items.size());
    for (int from = 0; from < items.size(); from += BATCH_CHUNK) {
      out.addAll(putRawChunk(items.subList(from, Math.min(items.size(), from + BATCH_CHUNK))));
    }
    return out;
  }

  private List<PutResult> putRawChunk(List<RawPut> chunk) {
    List<RecordKey> keys = chunk.stream().map(i -> i.record().key()).distinct().toList();
    for (int attempt = 1; ; attempt++) {
      try (Connection c = ds.getConnection()) {
        c.setAutoCommit(false);
        try {
          Map<RecordKey, Record> stored = records.selectForUpdate(c, keys);
          // as putRaw: never plan over a stored record that does not prove its content
          stored.values().forEach(r -> dev.lethe.store.core.RevisionHash.check(r, locationOf(r.key())));
          Set<RecordKey> hadRow = new HashSet<>(stored.keySet());
          Map<RecordKey, Record> written = new LinkedHashMap<>();
          List<PutResult> results = new ArrayList<>(chunk.size());
          for (RawPut item : chunk) {
            RecordKey key = item.record().key();
            Plan<PutResult> plan = RawPutPlanner.plan(Optional.ofNullable(stored.get(key)), item.record(),
                item.expected(), ancestorCap());
            if (plan instanceof Plan.Write<PutResult> w) {
              stored.put(key, w.record());
              written.put(key, w.record());
            }
            results.add(plan.result());
          }
          List<Record> inserts = new ArrayList<>();
          List<Record> updates = new ArrayList<>();
          written.forEach((k, r) -> (hadRow.contains(k) ? updates : inserts).add(r));
          records.writeAll(c, inserts, updates);
          c.commit();
          return results;
        } catch (SQLException e) {
          c.rollback();
          if (attempt < MAX_ATTEMPTS && vendor.lostRace(e)) {
            LOG.debug("Batch of {} raw puts lost a race (attempt {}): {}", chunk.size(), attempt, e.getSQLState());
            continue;
          }
          throw e;
        } catch (RuntimeException e) {
          c.rollback();
          throw e;
        }
      } catch (SQLException e) {
        throw SqlFailure.of("Cannot write a batch of " + chunk.size() + " records from "
            + chunk.get(0).record().key(), url, e);
      }
    }
  }

  @Override
  protected String locationOf(RecordKey key) {
    return RecordTable.TABLE + " row (" + key.namespace() + ", " + key.collection() + ", " + key.id()
        + ") in " + url;
  }

  @Override
  protected Optional<Record> read(RecordKey key) throws IOException {
    try (Connection c = ds.getConnection()) {
      return records.select(c, key, false);
    } catch (SQLException e) {
      throw SqlFailure.of("Cannot read " + key, url, e).getCause();
    }
  }

  @Override
  protected List<Record> scan(KeyPrefix prefix, RecordKey after, int limit, long maxBytes, boolean liveOnly)
      throws IOException {
    try (Connection c = ds.getConnection()) {
      return records.scan(c, prefix, after, limit, maxBytes, liveOnly);
    } catch (SQLException e) {
      throw SqlFailure.of("Cannot list " + prefix, url, e).getCause();
    }
  }

  @Override
  public BlobStore blobs() {
    return blobs;
  }

  /** Closes the connection pool (an embedded H2 database closes with its last connection). */
  @Override
  public void close() {
    ds.close();
  }

  @Override
  public String toString() {
    return "JdbcStore[" + url + "]";
  }
}
