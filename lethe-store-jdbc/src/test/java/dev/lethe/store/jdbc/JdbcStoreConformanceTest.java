package dev.lethe.store.jdbc;

import dev.lethe.store.core.Store;
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

  private Store open(String backend, int cap, MutableClock clock) throws Exception {
    JdbcStore store = JdbcStore.open(databases.create(backend, tmp), 2, cap, clock);
    opened.add(store);
    return store;
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
    }
  }
}
