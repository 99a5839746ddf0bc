package dev.lethe.store.fs;

import dev.lethe.store.core.Store;
import dev.lethe.store.core.conformance.StoreConformance;
import dev.lethe.store.core.testing.MutableClock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.time.Clock;
import java.nio.file.Path;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The conformance suite on the fs store, at the default cap and at cap 3. */
class FsStoreConformanceTest {

  @TempDir Path dir;

  @Test
  void theStoreKeepsTheCapItIsGivenAndRefusesACapBelowOneBeforeTouchingTheDisk() throws Exception {
    Path root = dir.resolve("cap-check");
    assertThatThrownBy(() -> new FsStore(root, 0, Clock.systemUTC()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ancestor cap must be at least 1");
    assertThat(root).doesNotExist();
    assertThat(new FsStore(Files.createDirectories(root), 3, Clock.systemUTC()).ancestorCap()).isEqualTo(3);
  }

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
