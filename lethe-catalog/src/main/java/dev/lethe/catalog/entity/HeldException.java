package dev.lethe.catalog.entity;

/**
 * A purge refused because a legal hold covers the table (docs/design/0444-legal-holds.md): a drop
 * with purge of a live table, or a purge-now of a retained one; nothing changed. The HTTP edge
 * answers 409 with the hold.
 */
public final class HeldException extends RuntimeException {
  private final HoldDao.Hold hold;

  /**
   * @param what the refused action, e.g. "Cannot purge table db.t"
   * @param hold the hold that covers the table; not null
   */
  public HeldException(String what, HoldDao.Hold hold) {
    super(what + ": it is under " + hold.describe());
    this.hold = hold;
  }

  /** The hold that refused the purge. */
  public HoldDao.Hold hold() {
    return hold;
  }
}
