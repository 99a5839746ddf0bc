package dev.lethe.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.collect.Collect;
import dev.lethe.store.core.progress.Progress;
import dev.lethe.store.core.testing.MutableClock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the purge log costs per collected tombstone on a {@code jdbc:} store on PostgreSQL
 * (docs/benchmarks.md "Purge log"), next to {@code FsPurgeLogSizeTest}: the same records, deleted
 * and collected; the growth of {@code pg_total_relation_size('lethe_store_purge_log')} (heap, TOAST
 * and indexes, in whole 8 KB pages) per tombstone. Skipped without {@code lethe.test.postgres.url}.
 */
class JdbcPurgeLogSizeTest {

  @TempDir Path tmp;

  private static long logBytes(String url) throws Exception {
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      s.execute("ANALYZE lethe_store_purge_log");
      try (ResultSet rs = s.executeQuery("SELECT pg_total_relation_size('lethe_store_purge_log')")) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static double bytesPerTombstone(String url, int edits, int records) throws Exception {
    MutableClock clock = MutableClock.at2026();
    try (JdbcStore s = JdbcStore.open(url, 2, 32, clock)) {
      long before = logBytes(url);
      for (int i = 0; i < records; i++) {
        RecordKey k = new RecordKey("notes", "e" + edits, String.format("note-%06d", i));
        Record r = ((Committed) s.put(Record.draft(k, Kind.DOCUMENT, Body.Inline.text("v0"), Meta.byAuthor("a")),
            Optional.empty())).record();
        for (int e = 1; e < edits; e++) {
          r = ((Committed) s.put(Record.draft(k, Kind.DOCUMENT, Body.Inline.text("v" + e), Meta.byAuthor("a")),
              Optional.of(r.revision()))).record();
        }
        s.delete(k, Optional.of(r.revision()));
      }
      clock.advance(Duration.ofDays(40));
      assertThat(Collect.run(s, KeyPrefix.collection("notes", "e" + edits), Duration.ofDays(30), clock, Progress.NONE)
          .purged()).isEqualTo(records);
      return (double) (logBytes(url) - before) / records;
    }
  }

  @Test
  void aCollectedTombstoneCostsAFewHundredBytesInThePostgresqlPurgeLog() throws Exception {
    try (FreshStoreDatabases dbs = new FreshStoreDatabases()) {
      String url = dbs.create("postgresql", tmp);
      double once = bytesPerTombstone(url, 1, 2000);
      double five = bytesPerTombstone(url, 5, 1000);
      double forty = bytesPerTombstone(url, 40, 300);
      System.out.printf("PostgreSQL purge log bytes per collected tombstone (table, TOAST, indexes):"
          + " 1 edit %.0f, 5 edits %.0f, 40 edits (cap 32) %.0f%n", once, five, forty);
      assertThat(once).isLessThan(600);
      assertThat(forty).isLessThan(4 * (32 * 75 + 200));
    }
  }
}
