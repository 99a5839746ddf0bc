package dev.lethe.catalog.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The pure rules of docs/design/0445-job-progress-and-receipts.md: staleness, kept reasons, the tally's JSON. */
class JobProgressRulesTest {
  private static CleanupJob job(CleanupJobState state, Long heartbeat) {
    return new CleanupJob(1, CleanupObjectType.TABLE, "m", "c", "main", "db", "t", "/x/metadata/1.json", "io", "x",
        state, 0, null, heartbeat, "alice", 0, 0);
  }

  @Test
  void aRunningJobIsStaleExactlyWhenAFreeWorkerMayReclaimIt() {
    assertThat(ListedJob.of(job(CleanupJobState.RUNNING, 1_000L), 1_000 + 500, 500).stale()).isFalse();
    assertThat(ListedJob.of(job(CleanupJobState.RUNNING, 1_000L), 1_000 + 501, 500).stale()).isTrue();
    assertThat(ListedJob.of(job(CleanupJobState.RUNNING, 1_000L), 1_000 + 501, 500).leaseAgeMs()).isEqualTo(501);
    assertThat(ListedJob.of(job(CleanupJobState.RUNNING, null), 5, 500).stale()).isTrue();
    // no lease, no age, never stale
    for (CleanupJobState s : List.of(CleanupJobState.PENDING, CleanupJobState.SUCCEEDED, CleanupJobState.FAILED)) {
      assertThat(ListedJob.of(job(s, null), 10_000, 500)).extracting(ListedJob::leaseAgeMs, ListedJob::stale)
          .containsExactly(null, false);
    }
  }

  @Test
  void keptReasonsFollowTheScopesReasons() {
    assertThat(KeptReason.ofScopeReason("outside the table location and write paths [/w/t]"))
        .isEqualTo(KeptReason.OUTSIDE_ROOTS);
    assertThat(KeptReason.ofScopeReason("inside /w/t/x, which another entry claims"))
        .isEqualTo(KeptReason.SHARED_WITH_ANOTHER_ENTRY);
    assertThat(KeptReason.ofScopeReason("not a valid location: empty")).isEqualTo(KeptReason.OTHER);
    assertThat(KeptReason.ofScopeReason(null)).isEqualTo(KeptReason.OTHER);
  }

  @Test
  void theTallyRoundTripsThroughItsJsonWithBoundedSamples() {
    JobProgress p = new JobProgress();
    p.deleted(FileKind.DATA_FILES, 3, 300, 0);
    p.deleted(FileKind.MANIFEST_LISTS, 2, 0, 2);
    for (int i = 0; i < 25; i++) {
      p.kept(KeptReason.OUTSIDE_ROOTS, "/o/" + i);
    }
    p.leftovers(2, List.of("/w/t/a", "/w/t/b"));
    JobProgress back = JobProgress.fromJson(p.toJson());
    assertThat(back.toJson()).isEqualTo(p.toJson());
    assertThat(back.files()).isEqualTo(5);
    assertThat(back.bytes()).isEqualTo(300);
    assertThat(back.unknownSizes()).isEqualTo(2);
    assertThat(back.kept().get(KeptReason.OUTSIDE_ROOTS).count()).isEqualTo(25);
    assertThat(back.kept().get(KeptReason.OUTSIDE_ROOTS).sample()).hasSize(JobProgress.SAMPLE);
    assertThat(back.withoutLeftovers().leftovers().count()).isZero();
    assertThat(JobProgress.fromJson(null).files()).isZero();
    assertThatThrownBy(() -> JobProgress.fromJson("{nope")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot read job progress");
  }
}
