package dev.lethe.store.core.memory;

import dev.lethe.store.core.Store;
import dev.lethe.store.core.conformance.StoreConformance;
import dev.lethe.store.core.testing.MutableClock;
import org.junit.jupiter.api.Nested;

/** The conformance suite on the memory store, at the default cap and at cap 3. */
class MemoryStoreConformanceTest {

  @Nested
  class AtCap32 extends StoreConformance {
    AtCap32() {
      super(32);
    }

    @Override
    protected Store open(int ancestorCap, MutableClock clock) {
      return new MemoryStore(ancestorCap, clock);
    }
  }

  @Nested
  class AtCap3 extends StoreConformance {
    AtCap3() {
      super(3);
    }

    @Override
    protected Store open(int ancestorCap, MutableClock clock) {
      return new MemoryStore(ancestorCap, clock);
    }
  }
}
