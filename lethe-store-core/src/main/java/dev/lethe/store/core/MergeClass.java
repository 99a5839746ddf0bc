package dev.lethe.store.core;

/** How sync merges two live records of the same kind that diverged (docs/design/0203-store-model.md "Model"). */
public enum MergeClass {
  /** The body is a set of lines; divergent sides merge to the ordered union of their lines. */
  APPEND_ONLY,
  /** Never merged: divergence is a conflict. */
  OPAQUE
}
