package dev.lethe.catalog.jobs;

/**
 * How a purge was asked for, stored on its job row at enqueue and copied to its receipt
 * (docs/design/0445-job-progress-and-receipts.md).
 */
public enum PurgePath {
  /** {@code DELETE …?purgeRequested=true} answered after the purge ran on the request thread. */
  SYNC,
  /** A drop with the async purge header, or any view purge: the workers run it. */
  ASYNC,
  /** A soft-deleted table whose retention ran out. */
  EXPIRY,
  /** An admin's purge-now of a soft-deleted table. */
  PURGE_NOW
}
