package dev.lethe.store.soak;

/**
 * The rows of the soak's summary: each counts violations of one promise and must be 0
 * (docs/design/0145-ha-soak.md "Oracle" defines each).
 */
public enum Row {
  /** an acknowledged live write that is not in its key's final lineage */
  LostUpdate,
  /** one write's unique body stored as two different revisions */
  DuplicateUpdate,
  /** two acknowledged writes (edits, recreations, tombstone-writing deletes) on one base revision */
  StaleBaseCommitted,
  /** an acknowledged write-once record that some replica does not answer as written */
  UniqueWriteLost,
  /** an acknowledged tombstone missing from its key's final lineage, or a collected key live again */
  AckedDeleteLost,
  /** a record that is half live and half tombstone */
  MixedLiveAndTombstone,
  /** a key whose raw record differs between replicas after the quiet period */
  ReplicasDisagree,
  /** a key whose consumer answer is not its raw record with tombstones hidden */
  ConsumerRawMismatch,
  /** 1 when the run produced no delete-versus-edit conflict */
  NoDeleteConflictsObserved,
  /** writers that got no write acknowledged, plus 1 when chaos was on and killed too few serving replicas */
  NoProgress
}
