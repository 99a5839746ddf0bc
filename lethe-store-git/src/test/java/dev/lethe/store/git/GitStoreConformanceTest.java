package dev.lethe.store.git;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.conformance.StoreConformance;
import dev.lethe.store.core.testing.MutableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.io.TempDir;

/** The conformance suite on the git store, at the default cap and at cap 3. */
class GitStoreConformanceTest {

  @TempDir Path dir;

  /** Edits a record file in the work tree by hand, as a user with an editor would. */
  static void tamper(GitStore s, RecordKey k, UnaryOperator<String> edit) throws Exception {
    Path file = s.pathOf(k);
    String edited = edit.apply(Files.readString(file));
    Files.writeString(file, edited);
    assertThat(Files.readString(file)).as("the record file of %s, rewritten", k).isEqualTo(edited);
  }

  private Store open(int cap, MutableClock clock) throws Exception {
    return GitStore.open(Files.createTempDirectory(dir, "store"), cap, clock);
  }

  @Nested
  class AtCap32 extends StoreConformance {
    AtCap32() {
      super(32);
    }

    @Override
    protected Store open(int ancestorCap, MutableClock clock) throws Exception {
      return GitStoreConformanceTest.this.open(ancestorCap, clock);
    }

    @Override
    protected boolean canTamper() {
      return true;
    }

    @Override
    protected void tamper(Store s, RecordKey k, UnaryOperator<String> edit) throws Exception {
      GitStoreConformanceTest.tamper((GitStore) s, k, edit);
    }
  }

  @Nested
  class AtCap3 extends StoreConformance {
    AtCap3() {
      super(3);
    }

    @Override
    protected Store open(int ancestorCap, MutableClock clock) throws Exception {
      return GitStoreConformanceTest.this.open(ancestorCap, clock);
    }

    @Override
    protected boolean canTamper() {
      return true;
    }

    @Override
    protected void tamper(Store s, RecordKey k, UnaryOperator<String> edit) throws Exception {
      GitStoreConformanceTest.tamper((GitStore) s, k, edit);
    }
  }
}
