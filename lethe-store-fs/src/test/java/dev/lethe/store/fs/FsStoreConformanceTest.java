package dev.lethe.store.fs;

import dev.lethe.store.core.Store;
import dev.lethe.store.core.conformance.StoreConformance;
import dev.lethe.store.core.testing.MutableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.io.TempDir;

/** The conformance suite on the fs store, at the default cap and at cap 3. */
class FsStoreConformanceTest {

  @TempDir Path dir;

  private Store open(int cap, MutableClock clock) throws Exception {
    return new FsStore(Files.createTempDirectory(dir, "store"), cap, clock);
  }

  @Nested
  class AtCap32 extends StoreConformance {
    AtCap32() {
      super(32);
    }

    @Override
    protected Store open(int ancestorCap, MutableClock clock) throws Exception {
      return FsStoreConformanceTest.this.open(ancestorCap, clock);
    }
  }

  @Nested
  class AtCap3 extends StoreConformance {
    AtCap3() {
      super(3);
    }

    @Override
    protected Store open(int ancestorCap, MutableClock clock) throws Exception {
      return FsStoreConformanceTest.this.open(ancestorCap, clock);
    }
  }
}
