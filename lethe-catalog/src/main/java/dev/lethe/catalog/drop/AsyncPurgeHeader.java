package dev.lethe.catalog.drop;

import java.util.Locale;

/**
 * Decides whether a {@code DELETE …?purgeRequested=true} (or a view drop) purges asynchronously
 * (docs/design/0200-catalog-architecture.md "Drop paths"; docs/design/0201-cleanup-jobs.md §1–§3): header {@code X-Lethe-Async-Purge}, or its alias
 * {@code X-Gravitino-Async-Purge}, with value {@code true} or {@code false} in any case; without
 * either header the catalog property {@code async-purge.default} decides (default false). Header
 * names are matched case-insensitively by the HTTP layer.
 */
public final class AsyncPurgeHeader {
  /** Lethe's header. */
  public static final String LETHE = "X-Lethe-Async-Purge";
  /** Alias accepted so clients written for Gravitino work unchanged. */
  public static final String GRAVITINO = "X-Gravitino-Async-Purge";
  /** Catalog property making async the default for clients that cannot send headers. */
  public static final String CATALOG_DEFAULT = "async-purge.default";

  private AsyncPurgeHeader() {}

  /** The decision. */
  public sealed interface Decision {}

  /** Purge in the background. */
  public record Async() implements Decision {}

  /** Purge on the request thread. */
  public record Sync() implements Decision {}

  /** The request is malformed (400); {@code message} names the header and the bad value. */
  public record Invalid(String message) implements Decision {}

  /**
   * @param lethe value of {@link #LETHE}, null if absent
   * @param gravitino value of {@link #GRAVITINO}, null if absent
   * @param catalogDefault value of the catalog property {@link #CATALOG_DEFAULT}, null if unset
   */
  public static Decision decide(String lethe, String gravitino, String catalogDefault) {
    Boolean a = null;
    Boolean b = null;
    if (lethe != null) {
      a = parse(lethe);
      if (a == null) {
        return new Invalid("Invalid " + LETHE + " header: expected true or false, got '" + lethe + "'");
      }
    }
    if (gravitino != null) {
      b = parse(gravitino);
      if (b == null) {
        return new Invalid("Invalid " + GRAVITINO + " header: expected true or false, got '" + gravitino + "'");
      }
    }
    if (a != null && b != null && !a.equals(b)) {
      return new Invalid("Conflicting " + LETHE + " and " + GRAVITINO + " headers");
    }
    Boolean chosen = a != null ? a : b;
    if (chosen == null) {
      chosen = "true".equalsIgnoreCase(catalogDefault == null ? null : catalogDefault.trim());
    }
    return chosen ? new Async() : new Sync();
  }

  private static Boolean parse(String v) {
    return switch (v.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> Boolean.TRUE;
      case "false" -> Boolean.FALSE;
      default -> null;
    };
  }
}
