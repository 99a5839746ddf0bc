package dev.lethe.store.core.memory;

import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.format.RecordJson;
import java.util.function.UnaryOperator;
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

  /** Replaces the record object the memory store holds, bypassing every check, as damage would. */
  static void tamper(MemoryStore s, RecordKey k, UnaryOperator<String> edit) {
    RecordJson json = new RecordJson();
    s.write(json.parse(edit.apply(json.format(s.read(k).orElseThrow()))));
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

    @Override
    protected boolean canTamper() {
      return true;
    }

    @Override
    protected void tamper(Store s, RecordKey k, UnaryOperator<String> edit) {
      MemoryStoreConformanceTest.tamper((MemoryStore) s, k, edit);
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

    @Override
    protected boolean canTamper() {
      return true;
    }

    @Override
    protected void tamper(Store s, RecordKey k, UnaryOperator<String> edit) {
      MemoryStoreConformanceTest.tamper((MemoryStore) s, k, edit);
    }
  }
}
