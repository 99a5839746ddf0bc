package dev.lethe.catalog.softdelete;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.catalog.entity.TableRow;
import dev.lethe.catalog.jobs.CleanupJob;
import dev.lethe.catalog.jobs.CleanupJobState;
import dev.lethe.catalog.jobs.CleanupObjectType;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.AlreadyClaimed;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.AlreadyDropped;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.CreateRecord;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.EnqueuePurge;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.Finalize;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.FinalizeTarget;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.Gone;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.KeepRecord;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.NoRetainedDeletion;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.NoTable;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.NotClaimable;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.RemoveMetadata;
import dev.lethe.catalog.softdelete.SoftDeletePlanner.Restore;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every rule of {@link SoftDeletePlanner}, directly. */
class SoftDeletePlannerTest {
  private static final long NOW = 1_784_800_000_000L;
  private static final long DEADLINE = NOW + 1_000;
  private static final String TABLE_ID = "table-1";
  private static final String D1 = "deletion-1";

  private static TableRow live() {
    return new TableRow(TABLE_ID, "c", "ns", "orders", "/w/orders/metadata/1.json", null, 0L, null, 1L, 1L);
  }

  private static TableRow retained(String deletionId) {
    return new TableRow(TABLE_ID, "c", "ns", "orders", "/w/orders/metadata/1.json", null, 0L, deletionId, 1L, 1L);
  }

  private static DeletionRecord deleted(boolean purge) {
    return new DeletionRecord(D1, "TABLE", TABLE_ID, DeletionState.DELETED, NOW - 5, DEADLINE, "alice", purge, null);
  }

  private static DeletionRecord purging(long job) {
    return new DeletionRecord(D1, "TABLE", TABLE_ID, DeletionState.PURGING, NOW - 5, DEADLINE, "alice", true, job);
  }

  private static CleanupJob job(long id, CleanupJobState state) {
    return new CleanupJob(id, CleanupObjectType.TABLE, "default", "c", "main", "ns", "orders", "/m.json", "impl", "x",
        state, 0, null, null, "alice", 1L, 1L, 0, null, null);
  }

  // ---- recoverability ----

  @Test
  void recoverableOnlyWhileDeletedBeforeTheDeadlineWithNoJob() {
    assertThat(SoftDeletePlanner.recoverable(deleted(true), DEADLINE - 1)).isTrue();
    assertThat(SoftDeletePlanner.recoverable(deleted(true), DEADLINE)).as("deadline is exclusive for restore").isFalse();
    assertThat(SoftDeletePlanner.recoverable(purging(7), NOW)).isFalse();
    DeletionRecord deletedWithJob = new DeletionRecord(D1, "TABLE", TABLE_ID, DeletionState.DELETED, NOW, DEADLINE, "a", true, 7L);
    assertThat(SoftDeletePlanner.recoverable(deletedWithJob, NOW)).isFalse();
  }

  @Test
  void expiredFromTheDeadlineInstantOnAndNeverOnceClaimed() {
    assertThat(SoftDeletePlanner.expired(deleted(true), DEADLINE - 1)).isFalse();
    assertThat(SoftDeletePlanner.expired(deleted(true), DEADLINE)).as("deadline is inclusive for purge").isTrue();
    assertThat(SoftDeletePlanner.expired(purging(7), DEADLINE + 1)).isFalse();
  }

  @Test
  void noInstantIsBothRecoverableAndExpired() {
    for (long t = DEADLINE - 3; t <= DEADLINE + 3; t++) {
      assertThat(SoftDeletePlanner.recoverable(deleted(false), t) && SoftDeletePlanner.expired(deleted(false), t)).isFalse();
      assertThat(SoftDeletePlanner.recoverable(deleted(false), t) || SoftDeletePlanner.expired(deleted(false), t)).isTrue();
    }
  }

  // ---- retention ----

  @ParameterizedTest
  @ValueSource(longs = {0, 1, 86_400_000L, 7_776_000_000L})
  void retentionFromZeroToNinetyDaysIsValid(long ms) {
    assertThat(SoftDeletePlanner.validateRetention(ms)).isEqualTo(ms);
  }

  @ParameterizedTest
  @ValueSource(longs = {-1, 7_776_000_001L, Long.MAX_VALUE, Long.MIN_VALUE})
  void retentionOutsideZeroToNinetyDaysIsRefusedNamingTheValue(long ms) {
    assertThatThrownBy(() -> SoftDeletePlanner.validateRetention(ms))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(String.valueOf(ms))
        .hasMessageContaining("7776000000");
  }

  // ---- drop ----

  @Test
  void dropOfALiveRowCreatesADeletedRecordWithTheDeadlineAndThePurgeFlag() {
    var d = SoftDeletePlanner.planDrop(Optional.of(live()), D1, NOW, 86_400_000L, "alice", true);
    assertThat(d).isInstanceOf(CreateRecord.class);
    DeletionRecord r = ((CreateRecord) d).record();
    assertThat(r).isEqualTo(new DeletionRecord(D1, "TABLE", TABLE_ID, DeletionState.DELETED, NOW, NOW + 86_400_000L,
        "alice", true, null));
    assertThat(SoftDeletePlanner.recoverable(r, NOW)).isTrue();
  }

  @Test
  void dropWithRetentionZeroCreatesARecordExpiredAtOnce() {
    DeletionRecord r = ((CreateRecord) SoftDeletePlanner.planDrop(Optional.of(live()), D1, NOW, 0, "bob", false)).record();
    assertThat(r.retentionExpiresAt()).isEqualTo(NOW);
    assertThat(r.purgeRequested()).isFalse();
    assertThat(SoftDeletePlanner.recoverable(r, NOW)).isFalse();
    assertThat(SoftDeletePlanner.expired(r, NOW)).isTrue();
  }

  @Test
  void replayedDropFindsThePointerSetAndCreatesNothing() {
    assertThat(SoftDeletePlanner.planDrop(Optional.of(retained(D1)), "deletion-2", NOW, 1000, "alice", true))
        .isEqualTo(new AlreadyDropped(D1));
  }

  @Test
  void dropOfNoRowIsNoTable() {
    assertThat(SoftDeletePlanner.planDrop(Optional.empty(), D1, NOW, 1000, "alice", true)).isInstanceOf(NoTable.class);
  }

  @Test
  void dropWithABadRetentionIsRefused() {
    assertThatThrownBy(() -> SoftDeletePlanner.planDrop(Optional.of(live()), D1, NOW, -1, "a", true))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // ---- restore ----

  @Test
  void restoreBeforeTheDeadlineRestores() {
    var d = SoftDeletePlanner.planRestore(Optional.of(deleted(true)), Optional.of(retained(D1)), DEADLINE - 1);
    assertThat(d).isEqualTo(new Restore(deleted(true), retained(D1)));
  }

  @Test
  void restoreWithoutARecordIs404IncludingAReplayedRestore() {
    assertThat(SoftDeletePlanner.planRestore(Optional.empty(), Optional.of(live()), NOW)).isInstanceOf(NoRetainedDeletion.class);
  }

  @Test
  void restoreWhoseRowPointsElsewhereIs404() {
    assertThat(SoftDeletePlanner.planRestore(Optional.of(deleted(true)), Optional.of(retained("deletion-2")), NOW))
        .isInstanceOf(NoRetainedDeletion.class);
    assertThat(SoftDeletePlanner.planRestore(Optional.of(deleted(true)), Optional.of(live()), NOW))
        .isInstanceOf(NoRetainedDeletion.class);
    assertThat(SoftDeletePlanner.planRestore(Optional.of(deleted(true)), Optional.empty(), NOW))
        .isInstanceOf(NoRetainedDeletion.class);
  }

  @Test
  void restoreAtOrAfterTheDeadlineIs410() {
    var atDeadline = SoftDeletePlanner.planRestore(Optional.of(deleted(true)), Optional.of(retained(D1)), DEADLINE);
    assertThat(atDeadline).isInstanceOf(Gone.class);
    assertThat(((Gone) atDeadline).reason()).contains("deadline passed");
    assertThat(SoftDeletePlanner.planRestore(Optional.of(deleted(true)), Optional.of(retained(D1)), DEADLINE + 60_000))
        .isInstanceOf(Gone.class);
  }

  @Test
  void restoreOfAPurgingRecordIs410EvenBeforeTheDeadline() {
    var d = SoftDeletePlanner.planRestore(Optional.of(purging(42)), Optional.of(retained(D1)), NOW);
    assertThat(d).isInstanceOf(Gone.class);
    assertThat(((Gone) d).reason()).contains("cleanup job 42");
  }

  // ---- claim ----

  @Test
  void claimOfAnExpiredRecordWithPurgeEnqueuesAPurge() {
    assertThat(SoftDeletePlanner.planClaim(Optional.of(deleted(true)), Optional.of(retained(D1)), DEADLINE, false))
        .isEqualTo(new EnqueuePurge(deleted(true), retained(D1)));
  }

  @Test
  void claimOfAnExpiredRecordWithoutPurgeRemovesRowAndRecordAndNoFiles() {
    assertThat(SoftDeletePlanner.planClaim(Optional.of(deleted(false)), Optional.of(retained(D1)), DEADLINE, false))
        .isEqualTo(new RemoveMetadata(deleted(false), true));
  }

  @Test
  void claimBeforeTheDeadlineDoesNothingUnlessImmediate() {
    assertThat(SoftDeletePlanner.planClaim(Optional.of(deleted(true)), Optional.of(retained(D1)), DEADLINE - 1, false))
        .isInstanceOf(NotClaimable.class);
    assertThat(SoftDeletePlanner.planClaim(Optional.of(deleted(true)), Optional.of(retained(D1)), DEADLINE - 1, true))
        .isEqualTo(new EnqueuePurge(deleted(true), retained(D1)));
  }

  @Test
  void claimOfAClaimedRecordIsAlreadyClaimedAndEnqueuesNoSecondJob() {
    assertThat(SoftDeletePlanner.planClaim(Optional.of(purging(7)), Optional.of(retained(D1)), DEADLINE, false))
        .isEqualTo(new AlreadyClaimed(purging(7)));
    assertThat(SoftDeletePlanner.planClaim(Optional.of(purging(7)), Optional.of(retained(D1)), NOW, true))
        .isEqualTo(new AlreadyClaimed(purging(7)));
  }

  @Test
  void claimOfARestoredRecordDoesNothing() {
    assertThat(SoftDeletePlanner.planClaim(Optional.empty(), Optional.of(live()), DEADLINE, false))
        .isInstanceOf(NotClaimable.class);
  }

  @Test
  void claimOfARecordWhoseRowPointsElsewhereRemovesOnlyTheRecord() {
    assertThat(SoftDeletePlanner.planClaim(Optional.of(deleted(true)), Optional.of(retained("deletion-2")), DEADLINE, false))
        .isEqualTo(new RemoveMetadata(deleted(true), false));
    assertThat(SoftDeletePlanner.planClaim(Optional.of(deleted(true)), Optional.empty(), DEADLINE, false))
        .isEqualTo(new RemoveMetadata(deleted(true), false));
  }

  // ---- finalization ----

  private static final FinalizeTarget TARGET = new FinalizeTarget(TABLE_ID, D1, 7);

  @Test
  void finalizationRemovesRowAndRecordWhenEverythingMatchesAndTheJobSucceeded() {
    assertThat(SoftDeletePlanner.planFinalize(TARGET, Optional.of(purging(7)), Optional.of(retained(D1)),
        Optional.of(job(7, CleanupJobState.SUCCEEDED)))).isEqualTo(new Finalize(true));
  }

  @ParameterizedTest
  @ValueSource(strings = {"PENDING", "RUNNING", "FAILED", "CANCELLED"})
  void finalizationWaitsForSucceededAndAFailedJobKeepsTheRecordPurging(String state) {
    assertThat(SoftDeletePlanner.planFinalize(TARGET, Optional.of(purging(7)), Optional.of(retained(D1)),
        Optional.of(job(7, CleanupJobState.valueOf(state))))).isInstanceOf(KeepRecord.class);
  }

  @Test
  void finalizationWithAnotherJobIdOrNoJobRowKeepsEverything() {
    assertThat(SoftDeletePlanner.planFinalize(TARGET, Optional.of(purging(8)), Optional.of(retained(D1)),
        Optional.of(job(7, CleanupJobState.SUCCEEDED)))).isInstanceOf(KeepRecord.class);
    assertThat(SoftDeletePlanner.planFinalize(TARGET, Optional.of(purging(7)), Optional.of(retained(D1)),
        Optional.of(job(8, CleanupJobState.SUCCEEDED)))).isInstanceOf(KeepRecord.class);
    assertThat(SoftDeletePlanner.planFinalize(TARGET, Optional.of(purging(7)), Optional.of(retained(D1)),
        Optional.empty())).isInstanceOf(KeepRecord.class);
  }

  @Test
  void finalizationOfAnUnclaimedOrVanishedRecordKeepsEverything() {
    assertThat(SoftDeletePlanner.planFinalize(TARGET, Optional.of(deleted(true)), Optional.of(retained(D1)),
        Optional.of(job(7, CleanupJobState.SUCCEEDED)))).isInstanceOf(KeepRecord.class);
    assertThat(SoftDeletePlanner.planFinalize(TARGET, Optional.empty(), Optional.of(live()),
        Optional.of(job(7, CleanupJobState.SUCCEEDED)))).isInstanceOf(KeepRecord.class);
    assertThat(SoftDeletePlanner.planFinalize(new FinalizeTarget("other-table", D1, 7), Optional.of(purging(7)),
        Optional.of(retained(D1)), Optional.of(job(7, CleanupJobState.SUCCEEDED)))).isInstanceOf(KeepRecord.class);
  }

  @Test
  void aRestoredAndDroppedAgainTableIsNeverDestroyedByTheFirstGenerationsJob() {
    // generation 1's job succeeded; the same table row now points at generation 2's deletion
    var d = SoftDeletePlanner.planFinalize(TARGET, Optional.of(purging(7)), Optional.of(retained("deletion-2")),
        Optional.of(job(7, CleanupJobState.SUCCEEDED)));
    assertThat(d).isEqualTo(new Finalize(false));
    var live = SoftDeletePlanner.planFinalize(TARGET, Optional.of(purging(7)), Optional.of(live()),
        Optional.of(job(7, CleanupJobState.SUCCEEDED)));
    assertThat(live).isEqualTo(new Finalize(false));
  }
}
