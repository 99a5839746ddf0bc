package dev.lethe.catalog.location;

import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.ValidationException;

/**
 * A commit refused because it would move a table (or view) into a location another entry holds:
 * 400 on the commit routes, not 409, because iceberg-java turns every 409 of a commit into a {@code
 * CommitFailedException} and retries it, and the spec says a client may retry a 409 commit; this
 * refusal never goes away by retrying (docs/design/0004-a-table-owns-every-root-its-snapshots-use.md).
 * A create or register on such a location stays an {@link AlreadyExistsException} (409), which no
 * client retries.
 */
public final class LocationHeldException extends ValidationException {
  /**
   * @param refused the refusal of the claims guard, whose message names the location and its holder
   */
  public LocationHeldException(AlreadyExistsException refused) {
    super(refused, "%s", refused.getMessage());
  }
}
