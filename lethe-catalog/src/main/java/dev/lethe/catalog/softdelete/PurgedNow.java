package dev.lethe.catalog.softdelete;

/**
 * What an admin purge-now of a retained table did, as its route answers it (docs/design/0202-soft-deletion.md):
 * refused (404), the entry removed at once because no purge was requested (200), or a purge that owns it (202).
 */
public sealed interface PurgedNow {
  /** Nothing was claimed: no retained deletion, or one still recoverable; {@code reason} says which. */
  record Refused(String reason) implements PurgedNow {}

  /** No purge was requested: the row and its record are gone, the files kept; the record as it was claimed. */
  record Removed(DeletedTable table) implements PurgedNow {}

  /** A purge owns the table now (enqueued by this call or before); the table as it is after the claim. */
  record Purging(DeletedTable table) implements PurgedNow {}
}
