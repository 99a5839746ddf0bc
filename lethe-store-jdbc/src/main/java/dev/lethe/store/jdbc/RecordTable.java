package dev.lethe.store.jdbc;

import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Page;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.format.CorruptRecordException;
import dev.lethe.store.core.format.RecordFormatException;
import dev.lethe.store.core.format.RecordJson;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Every statement on {@code lethe_store_record}, and the only place that holds them:
 * one row per record, keyed by {@code (key_namespace, key_collection, key_id)}, holding the
 * record's docs/store-format.md JSON in {@code record_json} and copies of the fields queries filter
 * on. Methods run on the caller's connection and transaction.
 */
final class RecordTable {

  static final String TABLE = "lethe_store_record";

  private static final String COLUMNS = "key_namespace, key_collection, key_id, record_json";
  private static final String ORDER = " ORDER BY key_namespace, key_collection, key_id";

  private final RecordJson json = new RecordJson();

  /**
   * Reads one key's row.
   *
   * @param forUpdate whether to lock the row until the transaction ends ({@code SELECT … FOR
   *     UPDATE}); an absent row locks nothing, which is why an insert relies on the primary key
   * @throws CorruptRecordException if the row's JSON is not a record of this key
   */
  Optional<Record> select(Connection c, RecordKey key, boolean forUpdate) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("SELECT " + COLUMNS + " FROM " + TABLE
        + " WHERE key_namespace = ? AND key_collection = ? AND key_id = ?"
        + (forUpdate ? " FOR UPDATE" : ""))) {
      s.setString(1, key.namespace());
      s.setString(2, key.collection());
      s.setString(3, key.id());
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? Optional.of(decode(rs)) : Optional.empty();
      }
    }
  }

  /**
   * Reads and locks ({@code SELECT … FOR UPDATE}) the rows of several keys in one statement, for a
   * batch of writes planned in one transaction; keys without a row are absent from the answer and
   * lock nothing (an insert relies on the primary key, as in {@link #select}).
   *
   * @param keys distinct keys, at least one
   * @return the stored record per key that has a row
   * @throws CorruptRecordException if a row's JSON is not a record of its key
   */
  java.util.Map<RecordKey, Record> selectForUpdate(Connection c, List<RecordKey> keys) throws SQLException {
    StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM " + TABLE + " WHERE ");
    for (int i = 0; i < keys.size(); i++) {
      sql.append(i == 0 ? "" : " OR ").append("(key_namespace = ? AND key_collection = ? AND key_id = ?)");
    }
    // one lock order for every batch (the key order), so two batches over the same keys do not deadlock
    sql.append(ORDER).append(" FOR UPDATE");
    java.util.Map<RecordKey, Record> out = new java.util.HashMap<>();
    try (PreparedStatement s = c.prepareStatement(sql.toString())) {
      int p = 1;
      for (RecordKey k : keys) {
        s.setString(p++, k.namespace());
        s.setString(p++, k.collection());
        s.setString(p++, k.id());
      }
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          Record r = decode(rs);
          out.put(r.key(), r);
        }
      }
    }
    return out;
  }

  /**
   * Inserts rows for keys that had none when read, and replaces rows locked in this transaction,
   * each as one JDBC batch.
   *
   * @throws SQLException with an integrity-constraint state if a concurrent transaction inserted
   *     one of the keys first, or with state 40001 if a locked row vanished; the caller re-runs
   */
  void writeAll(Connection c, List<Record> inserts, List<Record> updates) throws SQLException {
    if (!inserts.isEmpty()) {
      try (PreparedStatement s = c.prepareStatement("INSERT INTO " + TABLE
          + " (kind, revision_counter, revision_hash, deleted_at, record_json,"
          + " key_namespace, key_collection, key_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
        for (Record r : inserts) {
          bind(s, r);
          s.addBatch();
        }
        s.executeBatch();
      }
    }
    if (!updates.isEmpty()) {
      try (PreparedStatement s = c.prepareStatement("UPDATE " + TABLE
          + " SET kind = ?, revision_counter = ?, revision_hash = ?, deleted_at = ?, record_json = ?"
          + " WHERE key_namespace = ? AND key_collection = ? AND key_id = ?")) {
        for (Record r : updates) {
          bind(s, r);
          s.addBatch();
        }
        for (int n : s.executeBatch()) {
          if (n != 1 && n != java.sql.Statement.SUCCESS_NO_INFO) {
            throw new SQLException("a locked row vanished", "40001");
          }
        }
      }
    }
  }

  /**
   * Inserts a row for a key that had none when it was read.
   *
   * @throws SQLException with an integrity-constraint state if a concurrent transaction inserted
   *     the key first; the caller re-reads and re-plans
   */
  void insert(Connection c, Record r) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("INSERT INTO " + TABLE
        + " (kind, revision_counter, revision_hash, deleted_at, record_json,"
        + " key_namespace, key_collection, key_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
      bind(s, r);
      s.executeUpdate();
    }
  }

  /** Replaces the row of a key locked by {@link #select} in this transaction. */
  void update(Connection c, Record r) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("UPDATE " + TABLE
        + " SET kind = ?, revision_counter = ?, revision_hash = ?, deleted_at = ?, record_json = ?"
        + " WHERE key_namespace = ? AND key_collection = ? AND key_id = ?")) {
      bind(s, r);
      if (s.executeUpdate() != 1) {
        throw new SQLException("the locked row of " + r.key() + " vanished", "40001");
      }
    }
  }

  /** Removes the row of a key locked by {@link #select} in this transaction. */
  void delete(Connection c, RecordKey key) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("DELETE FROM " + TABLE
        + " WHERE key_namespace = ? AND key_collection = ? AND key_id = ?")) {
      s.setString(1, key.namespace());
      s.setString(2, key.collection());
      s.setString(3, key.id());
      s.executeUpdate();
    }
  }

  /**
   * Reads up to {@code limit} rows under {@code prefix} with a key after {@code after}, in byte
   * order of the key columns, stopping after the row that brings the records' {@link Page#sizeOf}
   * to {@code maxBytes} or more (docs/design/0110-pages-cut-by-bytes.md). Keyset paging on the
   * primary key, in rounds of two statements: the first reads only the keys and {@code
   * OCTET_LENGTH(record_json)} of up to the remaining count of rows, no JSON; the second reads the
   * JSON of the rows that fit the remaining budget (by those lengths), by key range up to the last
   * of them. So the JSON fetched is about the budget plus one record, not {@code limit} records,
   * whatever their size. A row rewritten, added or removed between the two statements is read as
   * it is at the second: the range and the count keep every key in order, and another round
   * follows when the second statement stopped short of the budget.
   *
   * @param after the key to start after, or null
   * @param limit at least 1
   * @param maxBytes at least 1, bytes
   * @param liveOnly whether to leave tombstones out
   */
  List<Record> scan(Connection c, KeyPrefix prefix, RecordKey after, int limit, long maxBytes, boolean liveOnly)
      throws SQLException {
    List<Record> out = new ArrayList<>();
    long total = 0;
    RecordKey cursor = after;
    while (out.size() < limit) {
      int want = limit - out.size();
      List<Sized> heads = sizes(c, prefix, cursor, want, liveOnly);
      if (heads.isEmpty()) {
        return out;
      }
      int k = 0;
      long planned = total;
      while (k < heads.size() && planned < maxBytes) {
        planned += heads.get(k).bytes();
        k++;
      }
      RecordKey last = heads.get(k - 1).key();
      List<Record> got = rows(c, prefix, cursor, last, k, liveOnly);
      for (Record r : got) {
        out.add(r);
        total += Page.sizeOf(r);
        if (total >= maxBytes) {
          return out;
        }
      }
      // k rows read: the k-th is the last key covered (earlier than `last` if rows were added
      // meanwhile); fewer: every key up to `last` was read.
      cursor = got.size() == k ? got.get(k - 1).key() : last;
      if (heads.size() < want && cursor.equals(last)) {
        return out;
      }
    }
    return out;
  }

  private record Sized(RecordKey key, long bytes) {}

  /** Keys and JSON lengths (bytes) of up to {@code limit} rows after {@code after}; no JSON. */
  private List<Sized> sizes(Connection c, KeyPrefix prefix, RecordKey after, int limit, boolean liveOnly)
      throws SQLException {
    List<Object> args = new ArrayList<>();
    String where = where(prefix, after, null, liveOnly, args);
    try (PreparedStatement s = c.prepareStatement("SELECT key_namespace, key_collection, key_id,"
        + " OCTET_LENGTH(record_json) FROM " + TABLE + where + ORDER + " LIMIT ?")) {
      args.add(limit);
      bindAll(s, args);
      s.setFetchSize(Math.min(limit, 500));
      List<Sized> out = new ArrayList<>();
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          out.add(new Sized(new RecordKey(rs.getString(1), rs.getString(2), rs.getString(3)), rs.getLong(4)));
        }
      }
      return out;
    }
  }

  /** Up to {@code limit} whole rows with a key after {@code after} and at most {@code through}. */
  private List<Record> rows(Connection c, KeyPrefix prefix, RecordKey after, RecordKey through, int limit,
      boolean liveOnly) throws SQLException {
    List<Object> args = new ArrayList<>();
    String where = where(prefix, after, through, liveOnly, args);
    try (PreparedStatement s = c.prepareStatement("SELECT " + COLUMNS + " FROM " + TABLE + where + ORDER
        + " LIMIT ?")) {
      args.add(limit);
      bindAll(s, args);
      s.setFetchSize(Math.min(limit, 500));
      List<Record> out = new ArrayList<>();
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          out.add(decode(rs));
        }
      }
      return out;
    }
  }

  private static String where(KeyPrefix prefix, RecordKey after, RecordKey through, boolean liveOnly,
      List<Object> args) {
    StringBuilder sql = new StringBuilder(" WHERE 1 = 1");
    if (prefix.namespace() != null) {
      sql.append(" AND key_namespace = ?");
      args.add(prefix.namespace());
    }
    if (prefix.collection() != null) {
      sql.append(" AND key_collection = ?");
      args.add(prefix.collection());
    }
    if (after != null) {
      // (ns, col, id) > (?, ?, ?), spelled out: not every database uses the index for row values
      sql.append(" AND (key_namespace > ? OR (key_namespace = ? AND (key_collection > ?"
          + " OR (key_collection = ? AND key_id > ?))))");
      args.add(after.namespace());
      args.add(after.namespace());
      args.add(after.collection());
      args.add(after.collection());
      args.add(after.id());
    }
    if (through != null) {
      sql.append(" AND (key_namespace < ? OR (key_namespace = ? AND (key_collection < ?"
          + " OR (key_collection = ? AND key_id <= ?))))");
      args.add(through.namespace());
      args.add(through.namespace());
      args.add(through.collection());
      args.add(through.collection());
      args.add(through.id());
    }
    if (liveOnly) {
      sql.append(" AND kind <> ?");
      args.add(Kind.TOMBSTONE.name());
    }
    return sql.toString();
  }

  private static void bindAll(PreparedStatement s, List<Object> args) throws SQLException {
    for (int i = 0; i < args.size(); i++) {
      s.setObject(i + 1, args.get(i));
    }
  }

  private void bind(PreparedStatement s, Record r) throws SQLException {
    s.setString(1, r.kind().name());
    s.setLong(2, r.revision().counter());
    s.setString(3, r.revision().hash());
    if (r.deletedAt() == null) {
      s.setNull(4, Types.BIGINT);
    } else {
      s.setLong(4, r.deletedAt());
    }
    s.setString(5, json.format(r));
    s.setString(6, r.key().namespace());
    s.setString(7, r.key().collection());
    s.setString(8, r.key().id());
  }

  private Record decode(ResultSet rs) throws SQLException {
    String where = TABLE + " row (" + rs.getString(1) + ", " + rs.getString(2) + ", " + rs.getString(3) + ")";
    Record r;
    try {
      r = json.parse(rs.getString(4));
      if (!r.key().namespace().equals(rs.getString(1)) || !r.key().collection().equals(rs.getString(2))
          || !r.key().id().equals(rs.getString(3))) {
        throw new RecordFormatException("the row's JSON holds key " + r.key());
      }
    } catch (RecordFormatException e) {
      throw new CorruptRecordException(where, e);
    }
    return r;
  }
}
