package dev.lethe.catalog.entity;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jdbi.v3.core.statement.StatementContext;
import org.jdbi.v3.core.statement.StatementCustomizer;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.SQLExceptionOverride;
import java.sql.Connection;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.mvstore.MVStore;
import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;
import dev.lethe.catalog.entity.migration.V7__names_compare_exactly;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.HandleCallbackDecorator;
import org.jdbi.v3.core.Jdbi;

/**
 * The catalog's JDBC database: a HikariCP pool, migrated by Flyway with the vendor's migrations on
 * open, queried through JDBI (docs/design/0200-catalog-architecture.md "Entities and storage").
 *
 * <p>Every vendor runs {@code READ COMMITTED} (MySQL/MariaDB are switched from their default
 * {@code REPEATABLE READ}), so the rules that lock and then read behave the same everywhere.
 *
 * <p>On H2 every JDBI callback ends, once no transaction is open, by writing what it committed to
 * the database's file: H2's store writes committed transactions to its file from a background thread
 * up to a second later, so without it a process killed right after answering a commit lost that
 * commit (docs/design/0053-h2-commits-survive-a-killed-process.md). {@link #awaitDurable()} is the
 * same barrier for a caller that is about to act on another thread's commit, such as a purge about
 * to delete files (docs/design/0054-no-file-deleted-before-the-drop-is-durable.md).
 *
 * <p>Closing it closes the pool; an embedded H2 database closes with its last connection.
 */
public final class CatalogDatabase implements AutoCloseable {
  private final HikariDataSource dataSource;
  private final DatabaseVendor vendor;
  private final Jdbi jdbi;
  private final Jdbi background;
  /** Statements executing now, so that {@link #interrupt()} can cancel them. */
  private final Set<Statement> running = ConcurrentHashMap.newKeySet();
  private volatile boolean interrupted;

  private CatalogDatabase(HikariDataSource dataSource, DatabaseVendor vendor) {
    this.dataSource = dataSource;
    this.vendor = vendor;
    this.jdbi = Jdbi.create(dataSource);
    this.background = Jdbi.create(dataSource);
    StatementCustomizer tracked = new StatementCustomizer() {
      @Override
      public void beforeExecution(PreparedStatement statement, StatementContext context) throws SQLException {
        if (interrupted) {
          throw new SQLException("Cannot run a statement: the catalog database is closing", "57P01");
        }
        running.add(statement);
        context.addCleanable(() -> running.remove(statement));
      }
    };
    jdbi.addCustomizer(tracked);
    background.addCustomizer(tracked);
    if (vendor == DatabaseVendor.H2) {
      jdbi.setHandleCallbackDecorator(new CheckpointAfterCallback());
    }
  }

  /**
   * Writes what a callback committed to H2's file before the callback's result is used (an answer
   * to a client), with {@link #writeCommitted(Handle)}. Skipped inside an open transaction (a nested
   * callback); the outermost callback writes.
   */
  private static final class CheckpointAfterCallback implements HandleCallbackDecorator {
    @Override
    public <R, X extends Exception> HandleCallback<R, X> decorate(HandleCallback<R, X> callback) {
      return handle -> {
        R result;
        try {
          result = callback.withHandle(handle);
        } catch (Throwable failure) {
          try {
            checkpoint(handle);
          } catch (RuntimeException e) {
            failure.addSuppressed(e);
          }
          throw failure;
        }
        checkpoint(handle);
        return result;
      };
    }

    private static void checkpoint(Handle handle) {
      if (!handle.isClosed() && !handle.isInTransaction()) {
        writeCommitted(handle);
      }
    }
  }

  /**
   * Returns once every transaction H2 committed before the call is in the database's file (the
   * operating system's cache, which a killed process does not lose). {@code CHECKPOINT} alone is not
   * that: when H2's background writer (or a commit over its unsaved-memory limit) has already taken
   * the changes into a store it writes on another thread, {@code CHECKPOINT} finds nothing unsaved
   * and returns before that write is done (docs/design/0054-no-file-deleted-before-the-drop-is-durable.md).
   * So on an embedded database this commits the store itself and then waits, under the store's
   * lock, for every write in flight. A server-mode ({@code jdbc:h2:tcp:}) session runs {@code
   * CHECKPOINT}: the data lives in the H2 server's process, which a killed Lethe does not take down.
   * Nothing to write for an in-memory or read-only database.
   */
  private static void writeCommitted(Handle handle) {
    MVStore store = embeddedStore(handle.getConnection());
    if (store == null) {
      handle.execute("CHECKPOINT");
    } else if (store.isPersistent() && !store.isReadOnly()) {
      store.commit();
      store.executeFilestoreOperation(() -> { });
    }
  }

  private static MVStore embeddedStore(Connection connection) {
    try {
      if (connection.isWrapperFor(JdbcConnection.class)
          && connection.unwrap(JdbcConnection.class).getSession() instanceof SessionLocal local) {
        return local.getDatabase().getStore().getMvStore();
      }
      return null;
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot reach the H2 store of a catalog connection: " + e.getMessage(), e);
    }
  }

  /**
   * Opens the pool and applies pending migrations.
   *
   * @throws IllegalArgumentException if the URL names an unsupported database
   * @throws org.flywaydb.core.api.FlywayException if a migration fails
   * @throws RuntimeException from HikariCP if the database cannot be reached
   */
  public static CatalogDatabase open(DatabaseSettings settings) {
    return open(settings, null);
  }

  /**
   * {@link #open(DatabaseSettings)}, with the pool's {@code hikaricp_*} meters (connections active,
   * idle, pending, acquire and usage times, tagged {@code pool="lethe-catalog"}) in {@code registry}
   * when it is not null (docs/design/0433-observability.md).
   */
  public static CatalogDatabase open(DatabaseSettings settings, io.micrometer.core.instrument.MeterRegistry registry) {
    DatabaseVendor vendor = DatabaseVendor.fromJdbcUrl(settings.jdbcUrl());
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(vendor == DatabaseVendor.H2 ? appendOnlyH2(settings.jdbcUrl()) : settings.jdbcUrl());
    if (settings.user() != null) {
      config.setUsername(settings.user());
    }
    if (settings.password() != null) {
      config.setPassword(settings.password());
    }
    config.setMaximumPoolSize(Math.max(1, settings.maxPoolSize()));
    if (vendor == DatabaseVendor.MYSQL) {
      // one isolation level on every vendor, as on PostgreSQL and H2: a plain read after a lock sees what
      // committed before the lock was granted (docs/design/0002-location-claims-schema-and-backfill.md §2)
      config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
    }
    config.setPoolName("lethe-catalog");
    if (registry != null) {
      config.setMetricsTrackerFactory(new com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory(registry));
    }
    EvictUnavailable evict = new EvictUnavailable();
    config.setExceptionOverride(evict);
    HikariDataSource ds = new HikariDataSource(config);
    evict.pool = ds;
    try {
      migrate(ds, vendor);
      return new CatalogDatabase(ds, vendor);
    } catch (RuntimeException e) {
      ds.close();
      throw e;
    }
  }

  /**
   * Evicts a connection whose statement failed with a {@link DatabaseUnavailable} failure, and
   * every other connection of the pool with it (docs/design/0430-health-that-tells-the-truth.md).
   * HikariCP by itself evicts only on SQLState class {@code 08} and a few vendor codes: an embedded
   * H2 database that closed itself on a full disk answers {@code 90098} on every pooled connection,
   * which stayed in the pool, so the server answered 500 until a restart although the space was
   * freed. A new connection reopens the database once its file can be written again.
   */
  private static final class EvictUnavailable implements SQLExceptionOverride {
    volatile HikariDataSource pool;

    @java.lang.Override
    public SQLExceptionOverride.Override adjudicate(SQLException e) {
      if (!DatabaseUnavailable.is(e)) {
        return SQLExceptionOverride.Override.CONTINUE_EVICT;
      }
      HikariDataSource p = pool;
      if (p != null && p.getHikariPoolMXBean() != null) {
        // the others share the closed database (H2) or the lost server: none of them is usable either
        p.getHikariPoolMXBean().softEvictConnections();
      }
      return SQLExceptionOverride.Override.MUST_EVICT;
    }
  }

  /**
   * The URL of an embedded H2 file database with {@code REUSE_SPACE=FALSE} added: H2 then appends
   * every store to the end of its file instead of writing it into the space of chunks it freed,
   * which after a killed process made it reopen at a store seconds old, losing commits already in
   * the file (docs/design/0055-h2-appends-its-stores.md). Unchanged: a URL that sets {@code
   * REUSE_SPACE} itself, an in-memory ({@code mem:}) or server-mode ({@code tcp:}, {@code ssl:})
   * database (whose file belongs to the H2 server's process), a read-only {@code zip:} one.
   *
   * @param url a {@code jdbc:h2:} URL, not null
   * @return the URL to open
   */
  static String appendOnlyH2(String url) {
    String rest = url.substring("jdbc:h2:".length());
    String lower = rest.toLowerCase(java.util.Locale.ROOT);
    if (lower.startsWith("mem:") || lower.startsWith("tcp:") || lower.startsWith("ssl:") || lower.startsWith("zip:")) {
      return url;
    }
    int settingsStart = rest.indexOf(';');
    if (settingsStart >= 0) {
      for (String setting : rest.substring(settingsStart + 1).split(";")) {
        int eq = setting.indexOf('=');
        if ((eq < 0 ? setting : setting.substring(0, eq)).trim().equalsIgnoreCase("REUSE_SPACE")) {
          return url;
        }
      }
    }
    return url + ";REUSE_SPACE=FALSE";
  }

  private static void migrate(DataSource ds, DatabaseVendor vendor) {
    FluentConfiguration flyway = Flyway.configure();
    if (vendor == DatabaseVendor.MYSQL) {
      // NO PAD name columns; the collation's name differs between MariaDB and MySQL (docs/design/0402)
      flyway.javaMigrations(new V7__names_compare_exactly());
    }
    flyway
        .dataSource(ds)
        .locations(vendor.migrationLocation())
        .table("lethe_schema_history")
        // a database that already holds a JDBC store's tables (its own history table) is fine:
        // start from version 0 (docs/design/0102-store-migrations.md)
        .baselineOnMigrate(true)
        .baselineVersion("0")
        .load()
        .migrate();
  }

  /**
   * The JDBI handle factory over the pool for everything a client is answered from: on H2 each
   * callback ends with a {@code CHECKPOINT}, so an acknowledged change survives a killed process.
   */
  public Jdbi jdbi() {
    return jdbi;
  }

  /**
   * Returns once every transaction committed before the call, on any connection of this pool, is
   * as durable as the database makes a commit: on H2 it is in the database's file (as after a
   * {@link #jdbi()} callback); PostgreSQL and MariaDB answer a commit once it is durable, so there
   * nothing is left to do. Called before a purge deletes its first file, so that no file goes while
   * the drop that enqueued the job could still be lost
   * (docs/design/0054-no-file-deleted-before-the-drop-is-durable.md).
   *
   * @throws org.jdbi.v3.core.ConnectionException if no connection can be had
   */
  public void awaitDurable() {
    if (vendor == DatabaseVendor.H2) {
      background.useHandle(CatalogDatabase::writeCommitted);
    }
  }

  /**
   * The same pool without the H2 {@code CHECKPOINT}, for the purge workers' own bookkeeping (job
   * claims, lease heartbeats, progress, outcomes, pruning): losing the last second of these in a
   * killed process is repaired by the next attempt, which resumes or redoes idempotent deletes,
   * while a checkpoint per batch would make every request wait behind the workers' store writes
   * (docs/design/0053-h2-commits-survive-a-killed-process.md "Background writes"). Identical to
   * {@link #jdbi()} on PostgreSQL and MariaDB, whose commits are durable anyway.
   */
  public Jdbi background() {
    return background;
  }

  /**
   * Ends the database work of requests still running when the server stops
   * (docs/design/0410-operations.md §4): cancels every statement executing now (JDBC {@link
   * Statement#cancel()}: the database aborts it, the connection stays usable) and makes every later
   * statement fail at once. The pool stays open; {@link #close()} still closes it. Irreversible.
   *
   * @return how many statements were cancelled
   */
  public int interrupt() {
    interrupted = true;
    int cancelled = 0;
    for (Statement statement : running) {
      try {
        statement.cancel();
        cancelled++;
      } catch (SQLException finishedMeanwhile) {
        // closed between the snapshot and the cancel: nothing left to end
      }
    }
    return cancelled;
  }

  /**
   * Checks that the database answers and accepts writes now, without writing
   * (docs/design/0430-health-that-tells-the-truth.md): one statement on a pooled connection, then
   * the vendor's read-only state: PostgreSQL's {@code transaction_read_only} (a standby, or
   * {@code default_transaction_read_only}), MariaDB/MySQL's {@code @@read_only}, an embedded H2
   * store that is closed or opened read-only. A full disk under a server database shows only when
   * it refuses a write; under an embedded H2 database the caller probes its directory.
   *
   * @throws IllegalStateException "read-only: …" when the database answers but refuses writes
   * @throws RuntimeException as JDBI and the driver throw it when no connection or statement works
   *     ({@link DatabaseUnavailable#is} is true for those)
   */
  public void checkWritable() {
    background.useHandle(h -> {
      switch (vendor) {
        case POSTGRESQL -> {
          if ("on".equalsIgnoreCase(h.createQuery("SHOW transaction_read_only").mapTo(String.class).one())) {
            throw new IllegalStateException("read-only: the server answers transaction_read_only = on");
          }
        }
        case MYSQL -> {
          String readOnly = h.createQuery("SELECT @@read_only").mapTo(String.class).one();
          if (readOnly != null && !"0".equals(readOnly) && !"false".equalsIgnoreCase(readOnly)) {
            throw new IllegalStateException("read-only: the server answers @@read_only = " + readOnly);
          }
        }
        case H2 -> {
          h.createQuery("SELECT 1").mapTo(Integer.class).one();
          MVStore store = embeddedStore(h.getConnection());
          if (store != null && store.isClosed()) {
            throw new IllegalStateException("the embedded H2 store is closed");
          }
          if (store != null && store.isPersistent() && store.isReadOnly()) {
            throw new IllegalStateException("read-only: the embedded H2 database was opened read-only");
          }
        }
      }
    });
  }

  /** How many catalog statements are executing now (for the stop's log line and tests). */
  public int runningStatements() {
    return running.size();
  }

  /** The database family, chosen from the JDBC URL. */
  public DatabaseVendor vendor() {
    return vendor;
  }

  @Override
  public void close() {
    dataSource.close();
  }
}
