package dev.lethe.store.core.memory;

import dev.lethe.store.core.Store;
import dev.lethe.store.core.conformance.StoreConformance;
import dev.lethe.store.core.testing.MutableClock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The conformance suite on the memory store, at the default cap and at cap 3. */
class MemoryStoreConformanceTest {

  @Test
  void theStoreKeepsTheCapItIsGivenAndRefusesACapBelowOne() {
    assertThat(new MemoryStore(3, Clock.systemUTC()).ancestorCap()).isEqualTo(3);
    assertThatThrownBy(() -> new MemoryStore(0, Clock.systemUTC()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ancestor cap must be at least 1");
  }

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
