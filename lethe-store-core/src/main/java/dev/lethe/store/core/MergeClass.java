package dev.lethe.store.core;

/** How sync merges two live records of the same kind that diverged (docs/design/0203-store-model.md "Model"). */
public enum MergeClass {
  /**
   * The body is a set of lines; divergent sides merge three-way against their newest common
   * ancestor, so a line one side removed stays removed (docs/design/0156-three-way-line-merge.md).
   */
  APPEND_ONLY,
  /** Never merged: divergence is a conflict. */
  OPAQUE
}
