package dev.lethe.catalog.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PurgeTransitionTest {
  private static CleanupJob job(int attempts, String lastError) {
    return new CleanupJob(1, CleanupObjectType.TABLE, "m", "c", "main", "db", "t", "/x/metadata/1.json",
        "io", "v1:x", CleanupJobState.RUNNING, attempts, lastError, 5L, "alice", 1, 1, 0, null, null);
  }

  @Test
  void completedJobSucceedsKeepingItsAttemptsAndClearingAnEarlierError() {
    assertThat(PurgeTransition.next(job(1, "earlier"), new PurgeOutcome.Completed(10), 5))
        .isEqualTo(new PurgeTransition.Write(CleanupJobState.SUCCEEDED, 1, null));
  }

  @Test
  void transientFailureBelowTheCeilingGoesBackToPendingWithTheReason() {
    assertThat(PurgeTransition.next(job(0, null), new PurgeOutcome.Transient("store down"), 5))
        .isEqualTo(new PurgeTransition.Write(CleanupJobState.PENDING, 1, "store down"));
  }

  @Test
  void transientFailureReachingTheCeilingFails() {
    assertThat(PurgeTransition.next(job(4, "x"), new PurgeOutcome.Transient("store down"), 5))
        .isEqualTo(new PurgeTransition.Write(CleanupJobState.FAILED, 5, "gave up after 5 attempts: store down"));
  }

  @Test
  void terminalFailureFailsAtOnce() {
    assertThat(PurgeTransition.next(job(0, null), new PurgeOutcome.Terminal("metadata corrupt"), 5))
        .isEqualTo(new PurgeTransition.Write(CleanupJobState.FAILED, 1, "metadata corrupt"));
  }

  @Test
  void aReleasedJobGoesBackToPendingWithoutCountingAnAttempt() {
    assertThat(PurgeTransition.next(job(2, "earlier"), new PurgeOutcome.Released(), 5))
        .isEqualTo(new PurgeTransition.Write(CleanupJobState.PENDING, 2, "earlier"));
  }

  @Test
  void lostLeaseWritesNothing() {
    assertThat(PurgeTransition.next(job(0, null), new PurgeOutcome.LeaseLost(), 5)).isInstanceOf(PurgeTransition.NoWrite.class);
  }

  @Test
  void longReasonsAreTruncatedToTheColumn() {
    PurgeTransition.Write w = (PurgeTransition.Write) PurgeTransition.next(job(0, null), new PurgeOutcome.Terminal("x".repeat(5000)), 5);
    assertThat(w.lastError()).hasSize(PurgeTransition.MAX_ERROR_LENGTH).endsWith("…");
  }
}
