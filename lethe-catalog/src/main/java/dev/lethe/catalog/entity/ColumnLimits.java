package dev.lethe.catalog.entity;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The size of every catalog column a client's input reaches, as declared in the migrations under
 * {@code db/migration/{h2,postgresql,mysql}}, and the checks that refuse input over them before
 * anything is written (docs/design/0401-name-and-column-limits.md). One limit per column, the same on
 * every database: a request that fits on one backend fits on all of them.
 *
 * <p>Characters are UTF-16 code units ({@link String#length()}), which is never fewer than the code
 * points PostgreSQL and MariaDB count, so a value within the limit fits every backend's column.
 *
 * <p>Every refusal is a {@link ColumnLimitException} (an {@link IllegalArgumentException}: 400)
 * whose message names the limit.
 */
public final class ColumnLimits {
  /** {@code lethe_table.name}, {@code lethe_view.name}, {@code lethe_cleanup_job.object_name}: VARCHAR(255). */
  public static final int ENTITY_NAME_CHARS = 255;
  /** {@code lethe_namespace.name} and {@code parent_name}, {@code lethe_cleanup_job.namespace}: VARCHAR(512), levels joined by U+001F. */
  public static final int NAMESPACE_NAME_CHARS = 512;
  /** {@code lethe_table.metadata_location} / {@code previous_metadata_location}, the same on {@code lethe_view}: VARCHAR(2048). */
  public static final int METADATA_LOCATION_CHARS = 2048;
  /** {@code lethe_location_claim.root}: VARCHAR(4096). */
  public static final int CLAIM_ROOT_CHARS = 4096;
  /**
   * {@code lethe_namespace.properties}: TEXT, stored as a JSON object. MariaDB's TEXT holds 65,535
   * bytes (PostgreSQL's and H2's hold more): the smallest is the limit everywhere.
   */
  public static final int NAMESPACE_PROPERTIES_JSON_BYTES = 65_535;

  private ColumnLimits() {}

  /** Refuses a namespace whose stored name (levels joined by U+001F) is over {@link #NAMESPACE_NAME_CHARS}. */
  public static void checkNamespaceName(String encoded) {
    if (encoded.length() > NAMESPACE_NAME_CHARS) {
      throw new ColumnLimitException("Invalid namespace name: its levels joined by U+001F are " + encoded.length()
          + " characters, over the limit of " + NAMESPACE_NAME_CHARS);
    }
  }

  /** Refuses a metadata file location over {@link #METADATA_LOCATION_CHARS}. */
  public static void checkMetadataLocation(String what, String location) {
    if (location != null && location.length() > METADATA_LOCATION_CHARS) {
      throw new ColumnLimitException(what + ": metadata file location is " + location.length()
          + " characters, over the limit of " + METADATA_LOCATION_CHARS + " (shorten the table or view location)");
    }
  }

  /** Refuses a location claim root over {@link #CLAIM_ROOT_CHARS}. */
  public static void checkClaimRoot(String what, String root) {
    if (root.length() > CLAIM_ROOT_CHARS) {
      throw new ColumnLimitException(what + ": location " + root.substring(0, 64) + "… is " + root.length()
          + " characters, over the limit of " + CLAIM_ROOT_CHARS);
    }
  }

  /** Refuses namespace properties whose stored JSON is over {@link #NAMESPACE_PROPERTIES_JSON_BYTES}. */
  public static void checkNamespaceProperties(Map<String, String> properties) {
    int bytes = Rows.propertiesToJson(properties).getBytes(StandardCharsets.UTF_8).length;
    if (bytes > NAMESPACE_PROPERTIES_JSON_BYTES) {
      throw new ColumnLimitException("Invalid namespace properties: stored as JSON they are " + bytes
          + " bytes, over the limit of " + NAMESPACE_PROPERTIES_JSON_BYTES);
    }
  }

  /** Input over a column limit: always a 400, raised before any write. */
  public static final class ColumnLimitException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    ColumnLimitException(String message) {
      super(message);
    }
  }
}
