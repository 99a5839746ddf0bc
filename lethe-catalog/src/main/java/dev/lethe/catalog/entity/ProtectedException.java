package dev.lethe.catalog.entity;

/**
 * A drop, rename away or namespace drop refused because a protection covers the entry
 * (docs/design/0441-drop-protection.md); nothing changed. The HTTP edge answers 409.
 */
public final class ProtectedException extends RuntimeException {
  private final ProtectionDao.Protection protection;

  /** @param protection the protection that covers the entry; not null */
  public ProtectedException(String what, ProtectionDao.Protection protection) {
    super(what + " is protected: " + protection.describe());
    this.protection = protection;
  }

  /** The protection that refused the change. */
  public ProtectionDao.Protection protection() {
    return protection;
  }
}
