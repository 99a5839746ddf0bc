package dev.lethe.store.fs;

import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Store;
import java.util.function.UnaryOperator;
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

  /** Edits a record file by hand, as a user with an editor would. */
  static void tamper(FsStore s, RecordKey k, UnaryOperator<String> edit) throws Exception {
    Path file = s.pathOf(k);
    Files.writeString(file, edit.apply(Files.readString(file)));
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

    @Override
    protected boolean canTamper() {
      return true;
    }

    @Override
    protected void tamper(Store s, RecordKey k, UnaryOperator<String> edit) throws Exception {
      FsStoreConformanceTest.tamper((FsStore) s, k, edit);
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

    @Override
    protected boolean canTamper() {
      return true;
    }

    @Override
    protected void tamper(Store s, RecordKey k, UnaryOperator<String> edit) throws Exception {
      FsStoreConformanceTest.tamper((FsStore) s, k, edit);
    }
  }
}
