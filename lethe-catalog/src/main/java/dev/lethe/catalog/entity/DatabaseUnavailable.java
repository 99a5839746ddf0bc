package dev.lethe.catalog.entity;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.h2.mvstore.MVStoreException;

/**
 * Which failures mean "the catalog database cannot be used now" rather than "this request is
 * wrong" (docs/design/0430-health-that-tells-the-truth.md): a lost or refused connection, a pool
 * that had none to give, an embedded H2 database that closed itself or whose file could not be
 * written. Such a failure is answered 503 with {@link #message}, and the pool evicts the
 * connection it came from, so the database is reopened once the cause is gone.
 */
public final class DatabaseUnavailable {
  /** The text every answer and readiness check starts with. */
  public static final String PREFIX = "catalog database unavailable: ";

  /**
   * H2's codes (its SQLState is the code) for a database that closed, is closing, or whose file
   * failed: DATABASE_IS_CLOSED, DATABASE_CALLED_AT_SHUTDOWN, NO_DISK_SPACE_AVAILABLE,
   * IO_EXCEPTION_1, IO_EXCEPTION_2 (H2 throws the first as a connection exception anyway).
   */
  private static final Set<String> H2_STATES = Set.of("90098", "90121", "90100", "90028", "90031");
  /** PostgreSQL's admin_shutdown, crash_shutdown, cannot_connect_now: the server went away. */
  private static final Set<String> SHUTDOWN_STATES = Set.of("57P01", "57P02", "57P03");
  /** An absolute path in a message (a file of the data directory): not shown to a probe without a token. */
  private static final Pattern PATH = Pattern.compile("(?<![\\w.:/])(?:file:)?/[^\\s\"',;()\\[\\]]*[^\\s\"',;()\\[\\].:]");

  private DatabaseUnavailable() {
  }

  /**
   * Whether {@code failure}, or any of its causes, says the database cannot be used now.
   *
   * @param failure any throwable, or null (false)
   */
  public static boolean is(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (matches(t)) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code e} itself (not its causes) is one of the family; the pool evicts its connection. */
  public static boolean matches(Throwable e) {
    if (e instanceof MVStoreException) {
      return true;
    }
    if (!(e instanceof SQLException s)) {
      return false;
    }
    if (s instanceof SQLTransientConnectionException || s instanceof SQLNonTransientConnectionException
        || s instanceof SQLRecoverableException) {
      return true;
    }
    String state = s.getSQLState();
    return state != null && (state.startsWith("08") || SHUTDOWN_STATES.contains(state) || H2_STATES.contains(state));
  }

  /**
   * The one-line answer to {@code failure}: {@value #PREFIX} then the first message of the family
   * in its chain and, when the chain ends in another message (the operating system's "No space
   * left on device"), that one in parentheses. Absolute paths are shown as {@code <path>}.
   *
   * @return empty when {@link #is} is false
   */
  public static Optional<String> message(Throwable failure) {
    Throwable first = null;
    Throwable root = failure;
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (first == null && matches(t)) {
        first = t;
      }
      root = t;
    }
    if (first == null) {
      return Optional.empty();
    }
    String text = firstLine(first.getMessage(), first.getClass().getSimpleName());
    String rootText = root == first ? null : firstLine(root.getMessage(), null);
    if (rootText != null && !text.contains(rootText)) {
      text = text + " (" + rootText + ")";
    }
    return Optional.of(PREFIX + withoutPaths(text));
  }

  /**
   * {@code text} with every absolute path ({@code /x}, {@code file:/x}) shown as {@code <path>}:
   * what a caller without a token may read of a failure (docs/design/0424-what-a-reader-sees-of-paths.md).
   */
  public static String withoutPaths(String text) {
    return PATH.matcher(text).replaceAll("<path>");
  }

  private static String firstLine(String message, String fallback) {
    if (message == null || message.isBlank()) {
      return fallback;
    }
    int nl = message.indexOf('\n');
    return (nl < 0 ? message : message.substring(0, nl)).strip();
  }
}
