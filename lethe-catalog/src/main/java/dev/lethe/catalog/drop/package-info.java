/**
 * Which path a drop takes (metadata-only, synchronous purge, asynchronous purge, soft deletion):
 * {@link dev.lethe.catalog.drop.DropPlanner} decides it as a pure function
 * (docs/design/0052-one-drop-planner.md; layout in docs/design/0210-catalog-drop-and-jobs-layout.md).
 */
package dev.lethe.catalog.drop;
