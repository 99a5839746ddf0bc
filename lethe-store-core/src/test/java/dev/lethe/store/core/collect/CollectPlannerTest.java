package dev.lethe.store.core.collect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.collect.CollectPlanner.Verdict;
import dev.lethe.store.core.tombstone.Tombstones;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class CollectPlannerTest {

  private Record tombstone(Long deletedAt) {
    Revision p = new Revision(1, ContentHash.ofUtf8("x"));
    return new Record(new RecordKey("n", "c", "i"), Kind.TOMBSTONE, new Revision(2, Tombstones.HASH), p,
        List.of(p), Body.EMPTY, Meta.EMPTY, deletedAt, null, List.of());
  }

  @Test
  void onlyTombstonesAtLeastTheHorizonOldArePurged() {
    Duration h = Duration.ofDays(7);
    long now = Duration.ofDays(100).toMillis();
    assertThat(CollectPlanner.judge(tombstone(now - h.toMillis()), now, h)).isEqualTo(Verdict.PURGE);
    assertThat(CollectPlanner.judge(tombstone(now - h.toMillis() + 1), now, h)).isEqualTo(Verdict.TOO_YOUNG);
    assertThat(CollectPlanner.judge(tombstone(now + 1), now, h)).isEqualTo(Verdict.TOO_YOUNG);
    assertThat(CollectPlanner.judge(tombstone(null), now, h)).isEqualTo(Verdict.UNSTAMPED);
    assertThat(CollectPlanner.judge(tombstone(0L), now, Duration.ofDays(365_000_000L))).isEqualTo(Verdict.TOO_YOUNG);
  }

  @Test
  void aZeroOrNegativeHorizonIsRejected() {
    assertThatThrownBy(() -> CollectPlanner.checkHorizon(Duration.ZERO)).hasMessageContaining("positive");
    assertThatThrownBy(() -> CollectPlanner.checkHorizon(Duration.ofSeconds(-1))).hasMessageContaining("positive");
  }
}
