package dev.lethe.store.jdbc;

import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.blob.BlobInfo;
import dev.lethe.store.core.blob.BlobRef;
import dev.lethe.store.core.blob.BlobStore;
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
 * Blobs of the JDBC store in table {@code lethe_store_blob} of the same database as the records
 * (docs/design/0100-jdbc-store-substrate.md), so every server on one database sees every blob.
 * The one place that holds this table's SQL. Each statement runs in its own transaction; the
 * conditional removal is one {@code DELETE … WHERE stored_at <= ?}, so a blob refreshed by a
 * concurrent put or touch is never removed.
 */
final class JdbcBlobStore implements BlobStore {

  private static final String TABLE = "lethe_store_blob";
  /** Moves a blob's stored time to now, never back: parameters now, now, hash. */
  private static final String REFRESH = "UPDATE " + TABLE
      + " SET stored_at = CASE WHEN stored_at > ? THEN stored_at ELSE ? END WHERE blob_hash = ?";

  private final DataSource ds;
  private final JdbcVendor vendor;
  private final Clock clock;
  private final String url;

  JdbcBlobStore(DataSource ds, JdbcVendor vendor, Clock clock, String redactedUrl) {
    this.ds = ds;
    this.vendor = vendor;
    this.clock = clock;
    this.url = redactedUrl;
  }

  private static String check(String hash) {
    if (!ContentHash.isValid(hash)) {
      throw new IllegalArgumentException("Invalid blob hash '" + hash + "'");
    }
    return hash;
  }

  @Override
  public BlobRef put(byte[] content) {
    String hash = ContentHash.of(content);
    long now = clock.millis();
    try (Connection c = ds.getConnection()) {
      // Refresh, else insert; an insert that loses to a concurrent one refreshes on the next pass,
      // and a refresh that finds the row gone (a gc removed it) inserts.
      for (int attempt = 1; ; attempt++) {
        try (PreparedStatement s = c.prepareStatement(REFRESH)) {
          s.setLong(1, now);
          s.setLong(2, now);
          s.setString(3, hash);
          if (s.executeUpdate() == 1) {
            return new BlobRef(hash, content.length);
          }
        }
        try (PreparedStatement s = c.prepareStatement("INSERT INTO " + TABLE
            + " (blob_hash, byte_length, stored_at, content) VALUES (?, ?, ?, ?)")) {
          s.setString(1, hash);
          s.setLong(2, content.length);
          s.setLong(3, now);
          s.setBytes(4, content);
          s.executeUpdate();
          return new BlobRef(hash, content.length);
        } catch (SQLException e) {
          if (attempt >= 4 || !vendor.lostRace(e)) {
            throw e;
          }
        }
      }
    } catch (SQLException e) {
      throw SqlFailure.of("Cannot store blob " + hash, url, e);
    }
  }

  @Override
  public boolean touch(String hash) {
    check(hash);
    try (Connection c = ds.getConnection();
        PreparedStatement s = c.prepareStatement(REFRESH)) {
      // one statement: it and remove's conditional DELETE lock the row, so they never interleave
      long now = clock.millis();
      s.setLong(1, now);
      s.setLong(2, now);
      s.setString(3, hash);
      return s.executeUpdate() == 1;
    } catch (SQLException e) {
      throw SqlFailure.of("Cannot refresh blob " + hash, url, e);
    }
  }

  @Override
  public Optional<byte[]> get(String hash) {
    check(hash);
    try (Connection c = ds.getConnection();
        PreparedStatement s = c.prepareStatement("SELECT content FROM " + TABLE + " WHERE blob_hash = ?")) {
      s.setString(1, hash);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? Optional.of(rs.getBytes(1)) : Optional.empty();
      }
    } catch (SQLException e) {
      throw SqlFailure.of("Cannot read blob " + hash, url, e);
    }
  }

  @Override
  public boolean contains(String hash) {
    check(hash);
    try (Connection c = ds.getConnection();
        PreparedStatement s = c.prepareStatement("SELECT 1 FROM " + TABLE + " WHERE blob_hash = ?")) {
      s.setString(1, hash);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next();
      }
    } catch (SQLException e) {
      throw SqlFailure.of("Cannot read blob " + hash, url, e);
    }
  }

  @Override
  public List<BlobInfo> list() {
    try (Connection c = ds.getConnection();
        PreparedStatement s = c.prepareStatement(
            "SELECT blob_hash, byte_length, stored_at FROM " + TABLE + " ORDER BY blob_hash")) {
      s.setFetchSize(500);
      List<BlobInfo> out = new ArrayList<>();
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          out.add(new BlobInfo(rs.getString(1), rs.getLong(2), rs.getLong(3)));
        }
      }
      return out;
    } catch (SQLException e) {
      throw SqlFailure.of("Cannot list blobs", url, e);
    }
  }

  @Override
  public boolean remove(String hash, long storedAtOrBeforeMs) {
    check(hash);
    try (Connection c = ds.getConnection();
        PreparedStatement s = c.prepareStatement(
            "DELETE FROM " + TABLE + " WHERE blob_hash = ? AND stored_at <= ?")) {
      s.setString(1, hash);
      s.setLong(2, storedAtOrBeforeMs);
      return s.executeUpdate() == 1;
    } catch (SQLException e) {
      throw SqlFailure.of("Cannot remove blob " + hash, url, e);
    }
  }
}
