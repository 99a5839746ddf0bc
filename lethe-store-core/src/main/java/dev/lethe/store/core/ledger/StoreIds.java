package dev.lethe.store.core.ledger;

import java.util.UUID;
import java.util.regex.Pattern;

/** Store ids (docs/design/0150-store-identity-and-peers.md): a random UUID, lowercase. */
public final class StoreIds {

  private static final Pattern ID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

  private StoreIds() {}

  /** A new id. */
  public static String create() {
    return UUID.randomUUID().toString();
  }

  /** @return {@code id} @throws IllegalArgumentException "Invalid store id '…'" if not one */
  public static String check(String id) {
    if (id == null || !ID.matcher(id).matches()) {
      throw new IllegalArgumentException("Invalid store id '" + id + "' (expected a UUID such as 0b6c…-…)");
    }
    return id;
  }
}
