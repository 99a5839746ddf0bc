package dev.lethe.cli.store;

/** Exit codes of {@code lethe store} (docs/design/0203-store-model.md "CLI"). */
final class ExitCode {
  /** Success. */
  static final int OK = 0;
  /** An error: I/O, an unreadable record, a not-found key on get, an ancestor cap below 1. */
  static final int ERROR = 1;
  /** A usage error: bad arguments, nothing changed. */
  static final int USAGE = 2;
  /** A conflict: re-read and retry (or re-run). */
  static final int CONFLICT = 3;

  private ExitCode() {}
}
