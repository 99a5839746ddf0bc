package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Store;
import java.nio.file.Files;
import java.util.function.UnaryOperator;
import dev.lethe.store.core.conformance.StoreConformance;
import dev.lethe.store.core.testing.MutableClock;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;

/**
 * The store conformance suite through the remote client against real {@code lethe server}
 * processes whose store is a {@code file:} store (the default), at cap 32 and cap 3.
 */
class RemoteStoreOnFileConformanceTest {

  private static StoreServerPool pool;

  @BeforeAll
  static void startPool() throws Exception {
    pool = new StoreServerPool(StoreServerPool.Backend.FILE,
        Path.of(System.getProperty("lethe.it.work-dir", "target/it"), "remote-store-file-" + System.nanoTime()));
  }

  @AfterAll
  static void stopPool() throws Exception {
    if (pool != null) {
      pool.close();
    }
  }

  /** Edits the record file on the server's disk by hand; the client sees it through the routes. */
  static void tamper(Store s, RecordKey k, UnaryOperator<String> edit) throws Exception {
    Path file = pool.storeDir(s).resolve(k.namespace()).resolve(k.collection()).resolve(k.id() + ".json");
    String before = Files.readString(file);
    String after = edit.apply(before);
    assertThat(after).as("the edit of %s changes the file", file).isNotEqualTo(before);
    Files.writeString(file, after);
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

    @Override
    protected boolean canTamper() {
      return true;
    }

    @Override
    protected void tamper(Store s, RecordKey k, UnaryOperator<String> edit) throws Exception {
      RemoteStoreOnFileConformanceTest.tamper(s, k, edit);
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

    @Override
    protected boolean canTamper() {
      return true;
    }

    @Override
    protected void tamper(Store s, RecordKey k, UnaryOperator<String> edit) throws Exception {
      RemoteStoreOnFileConformanceTest.tamper(s, k, edit);
    }
  }
}
