package dev.lethe.it;

import dev.lethe.store.core.Store;
import dev.lethe.store.core.conformance.StoreConformance;
import dev.lethe.store.core.testing.MutableClock;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;

/**
 * The store conformance suite through the remote client against real {@code lethe server}
 * processes whose store is a PostgreSQL database ({@code --store-uri jdbc:postgresql://…}), at cap 32 and cap 3;
 * the assertions are {@link StoreConformance}'s.
 */
class RemoteStoreOnPostgresConformanceTest {

  private static StoreServerPool pool;

  @BeforeAll
  static void startPool() throws Exception {
    pool = new StoreServerPool(StoreServerPool.Backend.POSTGRESQL,
        Path.of(System.getProperty("lethe.it.work-dir", "target/it"), "remote-store-postgres-" + System.nanoTime()));
  }

  @AfterAll
  static void stopPool() throws Exception {
    if (pool != null) {
      pool.close();
    }
  }

  @BeforeEach
  void emptyTheServers() throws Exception {
    pool.beginTest();
  }

  @Nested
  class AtCap32 extends StoreConformance {
    AtCap32() {
      super(32);
      clock.onChange(pool::setClock);
    }

    @Override
    protected Store open(int ancestorCap, MutableClock clock) throws Exception {
      return pool.open(ancestorCap, clock);
    }
  }

  @Nested
  class AtCap3 extends StoreConformance {
    AtCap3() {
      super(3);
      clock.onChange(pool::setClock);
    }

    @Override
    protected Store open(int ancestorCap, MutableClock clock) throws Exception {
      return pool.open(ancestorCap, clock);
    }
  }
}
