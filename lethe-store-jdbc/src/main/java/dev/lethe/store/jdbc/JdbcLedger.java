package dev.lethe.store.jdbc;

import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.ledger.Ledger;
import dev.lethe.store.core.ledger.LedgerJson;
import dev.lethe.store.core.ledger.Peer;
import dev.lethe.store.core.ledger.PurgeEntry;
import dev.lethe.store.core.ledger.PurgeLogHorizon;
import dev.lethe.store.core.ledger.PurgeLogPage;
import dev.lethe.store.core.ledger.StoreIds;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * A JDBC store's ledger in the tables of migration V2 (docs/design/0151-purge-log.md "Storage"):
 * {@code lethe_store_meta} (store id, collect cutoff), {@code lethe_store_peer}, and {@code
 * lethe_store_purge_log}, whose rows {@link JdbcStore} inserts in the transaction that removes
 * the tombstone. The first store to insert the id wins; a racing one reads the winner's.
 */
final class JdbcLedger implements Ledger {

  private static final String ID = "store_id";
  private static final String CUTOFF = "collect_cutoff";

  private final DataSource ds;
  private final Clock clock;
  private final String url;

  JdbcLedger(DataSource ds, Clock clock, String redactedUrl) {
    this.ds = ds;
    this.clock = clock;
    this.url = redactedUrl;
  }

  private interface Sql<T> {
    T run(Connection c) throws SQLException;
  }

  private <T> T tx(String what, Sql<T> body) {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try {
        T out = body.run(c);
        c.commit();
        return out;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw SqlFailure.of("Cannot " + what, url, e);
    }
  }

  private static Optional<String> meta(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT meta_value FROM lethe_store_meta WHERE meta_name = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
      }
    }
  }

  private static void setMeta(Connection c, String name, String value) throws SQLException {
    try (PreparedStatement del = c.prepareStatement("DELETE FROM lethe_store_meta WHERE meta_name = ?")) {
      del.setString(1, name);
      del.executeUpdate();
    }
    try (PreparedStatement ins = c.prepareStatement("INSERT INTO lethe_store_meta (meta_name, meta_value) VALUES (?, ?)")) {
      ins.setString(1, name);
      ins.setString(2, value);
      ins.executeUpdate();
    }
  }

  @Override
  public String storeId() {
    Optional<String> id = tx("read the store id", c -> meta(c, ID));
    if (id.isPresent()) {
      return id.get();
    }
    try {
      String fresh = StoreIds.create();
      tx("create the store id", c -> {
        try (PreparedStatement ins = c.prepareStatement("INSERT INTO lethe_store_meta (meta_name, meta_value) VALUES (?, ?)")) {
          ins.setString(1, ID);
          ins.setString(2, fresh);
          ins.executeUpdate();
        }
        return null;
      });
    } catch (java.io.UncheckedIOException e) {
      // a racing store inserted first: its id is the store's
    }
    return tx("read the store id", c -> meta(c, ID)).orElseThrow(
        () -> new IllegalStateException("Cannot create the store id in " + url));
  }

  @Override
  public long now() {
    return clock.millis();
  }

  @Override
  public List<Peer> peers() {
    return tx("read the store's peers", c -> {
      List<Peer> out = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT peer_id, uri, last_sync, collect_cutoff, clock_offset FROM lethe_store_peer ORDER BY peer_id");
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          long cut = rs.getLong(4);
          Long cutoff = rs.wasNull() ? null : cut;
          out.add(new Peer(rs.getString(1), rs.getString(2), rs.getLong(3), cutoff, rs.getLong(5)));
        }
      }
      return out;
    });
  }

  @Override
  public void recordPeer(Peer peer) {
    for (int attempt = 1; ; attempt++) {
      try {
        tx("record peer " + peer.id(), c -> {
          forget(c, peer.id());
          try (PreparedStatement ins = c.prepareStatement("INSERT INTO lethe_store_peer "
              + "(peer_id, uri, last_sync, collect_cutoff, clock_offset) VALUES (?, ?, ?, ?, ?)")) {
            ins.setString(1, peer.id());
            ins.setString(2, peer.uri());
            ins.setLong(3, peer.lastSyncMs());
            if (peer.collectCutoffMs() == null) {
              ins.setNull(4, java.sql.Types.BIGINT);
            } else {
              ins.setLong(4, peer.collectCutoffMs());
            }
            ins.setLong(5, peer.clockOffsetMs());
            ins.executeUpdate();
          }
          return null;
        });
        return;
      } catch (java.io.UncheckedIOException e) {
        if (attempt == 3) {
          throw e; // two syncs recording the same peer at once: the later one retries
        }
      }
    }
  }

  private static int forget(Connection c, String id) throws SQLException {
    try (PreparedStatement del = c.prepareStatement("DELETE FROM lethe_store_peer WHERE peer_id = ?")) {
      del.setString(1, id);
      return del.executeUpdate();
    }
  }

  @Override
  public boolean forgetPeer(String id) {
    return tx("forget peer " + id, c -> forget(c, id) > 0);
  }

  @Override
  public Optional<Long> collectCutoff() {
    return tx("read the collect cutoff", c -> meta(c, CUTOFF)).map(Long::valueOf);
  }

  @Override
  public void recordCollect(long cutoffMs) {
    tx("record a collect", c -> {
      setMeta(c, CUTOFF, Long.toString(cutoffMs));
      return null;
    });
  }

  @Override
  public void appendPurged(PurgeEntry entry) {
    tx("append to the purge log", c -> {
      append(c, entry);
      return null;
    });
  }

  /** Inserts {@code entry} in the caller's transaction. */
  static void append(Connection c, PurgeEntry entry) throws SQLException {
    try (PreparedStatement ins = c.prepareStatement("INSERT INTO lethe_store_purge_log "
        + "(key_namespace, key_collection, key_id, purged_at, entry_json) VALUES (?, ?, ?, ?, ?)")) {
      ins.setString(1, entry.key().namespace());
      ins.setString(2, entry.key().collection());
      ins.setString(3, entry.key().id());
      ins.setLong(4, entry.purgedAt());
      ins.setString(5, LedgerJson.entry(entry));
      ins.executeUpdate();
    }
  }

  @Override
  public List<PurgeEntry> purged(KeyPrefix prefix) {
    return tx("read the purge log", c -> {
      String where = prefix.namespace() == null ? ""
          : prefix.collection() == null ? " WHERE key_namespace = ?" : " WHERE key_namespace = ? AND key_collection = ?";
      List<PurgeEntry> out = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement("SELECT entry_json FROM lethe_store_purge_log" + where + " ORDER BY seq")) {
        if (prefix.namespace() != null) {
          ps.setString(1, prefix.namespace());
          if (prefix.collection() != null) {
            ps.setString(2, prefix.collection());
          }
        }
        ps.setFetchSize(1000);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.add(LedgerJson.entry(rs.getString(1)));
          }
        }
      }
      return out;
    });
  }

  /**
   * A keyset page by append sequence (docs/design/0157-purge-log-pages.md): the cursor is
   * {@code s<seq>} of the page's last row, so a trim never moves it.
   */
  @Override
  public PurgeLogPage purgedPage(KeyPrefix prefix, Optional<String> after, int size) {
    PurgeLogPage.checkSize(size);
    long from = after.map(JdbcLedger::seq).orElse(0L);
    return tx("read the purge log", c -> {
      String where = prefix.namespace() == null ? ""
          : prefix.collection() == null ? " AND key_namespace = ?" : " AND key_namespace = ? AND key_collection = ?";
      List<PurgeEntry> out = new ArrayList<>();
      long last = from;
      boolean more = false;
      try (PreparedStatement ps = c.prepareStatement("SELECT seq, entry_json FROM lethe_store_purge_log WHERE seq > ?"
          + where + " ORDER BY seq")) {
        ps.setLong(1, from);
        if (prefix.namespace() != null) {
          ps.setString(2, prefix.namespace());
          if (prefix.collection() != null) {
            ps.setString(3, prefix.collection());
          }
        }
        ps.setMaxRows(size + 1);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            if (out.size() == size) {
              more = true;
              break;
            }
            last = rs.getLong(1);
            out.add(LedgerJson.entry(rs.getString(2)));
          }
        }
      }
      return new PurgeLogPage(out, more ? Optional.of("s" + last) : Optional.empty());
    });
  }

  private static long seq(String cursor) {
    if (!cursor.matches("s[0-9]{1,18}")) {
      throw PurgeLogPage.refused();
    }
    return Long.parseLong(cursor.substring(1));
  }

  @Override
  public int trimPurged(long purgedBeforeMs) {
    return tx("trim the purge log", c -> {
      // docs/design/0151-purge-log.md "Trimming"
      PurgeLogHorizon.check(purgedBeforeMs, meta(c, CUTOFF).map(Long::valueOf));
      try (PreparedStatement del = c.prepareStatement("DELETE FROM lethe_store_purge_log WHERE purged_at < ?")) {
        del.setLong(1, purgedBeforeMs);
        return del.executeUpdate();
      }
    });
  }
}
