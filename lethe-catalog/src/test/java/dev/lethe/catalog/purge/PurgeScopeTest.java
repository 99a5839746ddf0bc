package dev.lethe.catalog.purge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.catalog.location.LocationPath;
import dev.lethe.catalog.location.TableRoots;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Rule 1 on the purge side: the pure decision of which paths a purge may delete. */
class PurgeScopeTest {
  private static final PurgeScope SCOPE = PurgeScope.of(
      TableRoots.of("/wh/db/t", Map.of("write.data.path", "s3://bucket/data/t")),
      List.of(LocationPath.parse("/wh/db/t/nested")));

  @ParameterizedTest
  @ValueSource(strings = {
      "/wh/db/t/data/a.parquet", "file:/wh/db/t/data/a.parquet", "file:///wh/db/t/metadata/v1.metadata.json",
      "file://localhost/wh/db/t/x", "/wh/db//t/data/.a.parquet.crc", "s3a://bucket/data/t/part-0.parquet",
      "s3://bucket/data/t/deep/er/x"})
  void pathsInsideTheTableRootsAreDeleted(String path) {
    assertThat(SCOPE.decide(path)).isEqualTo(new PurgeScope.Delete(path));
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "/outside/stats.puffin", "/wh/db/t2/data/a.parquet", "/wh/db/t/../t2/a.parquet", "/wh/db/t/./a",
      "/wh/db/t/a?x", "/wh/db/t/a#frag", "file://otherhost/wh/db/t/a", "relative/wh/db/t/a", "file:wh/db/t/a",
      "s3://other/data/t/a", "s3://bucket/data/t2/a", "", "/wh/db/t/nested/data/x.parquet", "/wh/db"})
  void everythingElseIsKeptWithAReason(String path) {
    PurgeScope.Decision d = SCOPE.decide(path);
    assertThat(d).isInstanceOf(PurgeScope.Keep.class);
    assertThat(((PurgeScope.Keep) d).path()).isEqualTo(path);
    assertThat(((PurgeScope.Keep) d).reason()).isNotBlank();
  }

  @Test
  void nullIsKept() {
    assertThat(SCOPE.decide(null)).isInstanceOf(PurgeScope.Keep.class);
  }

  @Test
  void theSweepNeverEntersAnotherEntrysClaimOrLeavesTheRoots() {
    assertThat(SCOPE.sweepable(LocationPath.parse("/wh/db/t/data"))).isTrue();
    assertThat(SCOPE.sweepable(LocationPath.parse("/wh/db/t/nested"))).isFalse();
    assertThat(SCOPE.sweepable(LocationPath.parse("/wh/db/t/nested/metadata"))).isFalse();
    assertThat(SCOPE.sweepable(LocationPath.parse("/wh/db"))).isFalse();
    assertThat(SCOPE.excludedInside(LocationPath.parse("/wh/db/t"))).containsExactly(LocationPath.parse("/wh/db/t/nested"));
    assertThat(SCOPE.excludedInside(LocationPath.parse("s3://bucket/data/t"))).isEmpty();
  }
}
