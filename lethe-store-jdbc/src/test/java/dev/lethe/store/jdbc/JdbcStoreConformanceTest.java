package dev.lethe.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Store;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import dev.lethe.store.core.conformance.StoreConformance;
import dev.lethe.store.core.testing.MutableClock;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance suite on the JDBC store, on H2, PostgreSQL and MariaDB, each at cap 32 and cap
 * 3. Every store the suite opens is a fresh database (schema on PostgreSQL).
 */
class JdbcStoreConformanceTest {

  @TempDir Path tmp;
  private final FreshStoreDatabases databases = new FreshStoreDatabases();
  private final List<JdbcStore> opened = new ArrayList<>();

  private final Map<Store, String> urls = new HashMap<>();

  private Store open(String backend, int cap, MutableClock clock) throws Exception {
    String url = databases.create(backend, tmp);
    JdbcStore store = JdbcStore.open(url, 2, cap, clock);
    opened.add(store);
    urls.put(store, url);
    return store;
  }

  /** Rewrites a row's record_json behind the store's back, as a hand-run UPDATE would. */
  private void tamper(Store s, RecordKey k, UnaryOperator<String> edit) throws Exception {
    String where = " WHERE key_namespace = ? AND key_collection = ? AND key_id = ?";
    try (Connection c = DriverManager.getConnection(urls.get(s))) {
      String json;
      try (PreparedStatement q = c.prepareStatement("SELECT record_json FROM lethe_store_record" + where)) {
        bindKey(q, 1, k);
        try (ResultSet rs = q.executeQuery()) {
          assertThat(rs.next()).as("a row for %s", k).isTrue();
          json = rs.getString(1);
        }
      }
      try (PreparedStatement u = c.prepareStatement("UPDATE lethe_store_record SET record_json = ?" + where)) {
        u.setString(1, edit.apply(json));
        bindKey(u, 2, k);
        assertThat(u.executeUpdate()).as("rows rewritten for %s", k).isEqualTo(1);
      }
    }
  }

  private static void bindKey(PreparedStatement s, int from, RecordKey k) throws Exception {
    s.setString(from, k.namespace());
    s.setString(from + 1, k.collection());
    s.setString(from + 2, k.id());
  }

  @AfterEach
  void closeStores() throws Exception {
    opened.forEach(JdbcStore::close);
    databases.close();
  }

  @Nested
  class OnH2 {
    @Nested
    class AtCap32 extends StoreConformance {
      AtCap32() {
        super(32);
      }

      @Override
      protected Store open(int ancestorCap, MutableClock clock) throws Exception {
        return JdbcStoreConformanceTest.this.open("h2", ancestorCap, clock);
      }

      @Override
      protected boolean canTamper() {
        return true;
      }

      @Override
      protected void tamper(Store s, RecordKey k, UnaryOperator<String> edit) throws Exception {
        JdbcStoreConformanceTest.this.tamper(s, k, edit);
      }
    }

    @Nested
    class AtCap3 extends StoreConformance {
      AtCap3() {
        super(3);
      }

      @Override
      protected Store open(int ancestorCap, MutableClock clock) throws Exception {
        return JdbcStoreConformanceTest.this.open("h2", ancestorCap, clock);
      }

      @Override
      protected boolean canTamper() {
        return true;
      }

      @Override
      protected void tamper(Store s, RecordKey k, UnaryOperator<String> edit) throws Exception {
        JdbcStoreConformanceTest.this.tamper(s, k, edit);
      }
    }
  }

  @Nested
  class OnPostgreSQL {
    @Nested
    class AtCap32 extends StoreConformance {
      AtCap32() {
        super(32);
      }

      @Override
      protected Store open(int ancestorCap, MutableClock clock) throws Exception {
        return JdbcStoreConformanceTest.this.open("postgresql", ancestorCap, clock);
      }

      @Override
      protected boolean canTamper() {
        return true;
      }

      @Override
      protected void tamper(Store s, RecordKey k, UnaryOperator<String> edit) throws Exception {
        JdbcStoreConformanceTest.this.tamper(s, k, edit);
      }
    }

    @Nested
    class AtCap3 extends StoreConformance {
      AtCap3() {
        super(3);
      }

      @Override
      protected Store open(int ancestorCap, MutableClock clock) throws Exception {
        return JdbcStoreConformanceTest.this.open("postgresql", ancestorCap, clock);
      }

      @Override
      protected boolean canTamper() {
        return true;
      }

      @Override
      protected void tamper(Store s, RecordKey k, UnaryOperator<String> edit) throws Exception {
        JdbcStoreConformanceTest.this.tamper(s, k, edit);
      }
    }
  }

  @Nested
  class OnMariaDB {
    @Nested
    class AtCap32 extends StoreConformance {
      AtCap32() {
        super(32);
      }

      @Override
      protected Store open(int ancestorCap, MutableClock clock) throws Exception {
        return JdbcStoreConformanceTest.this.open("mariadb", ancestorCap, clock);
      }

      @Override
      protected boolean canTamper() {
        return true;
      }

      @Override
      protected void tamper(Store s, RecordKey k, UnaryOperator<String> edit) throws Exception {
        JdbcStoreConformanceTest.this.tamper(s, k, edit);
      }
    }

    @Nested
    class AtCap3 extends StoreConformance {
      AtCap3() {
        super(3);
      }

      @Override
      protected Store open(int ancestorCap, MutableClock clock) throws Exception {
        return JdbcStoreConformanceTest.this.open("mariadb", ancestorCap, clock);
      }

      @Override
      protected boolean canTamper() {
        return true;
      }

      @Override
      protected void tamper(Store s, RecordKey k, UnaryOperator<String> edit) throws Exception {
        JdbcStoreConformanceTest.this.tamper(s, k, edit);
      }
    }
  }
}
