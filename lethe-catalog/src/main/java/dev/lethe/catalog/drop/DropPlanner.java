package dev.lethe.catalog.drop;

import java.util.Locale;
import java.util.function.Supplier;

/**
 * The one decision of a table or view drop (docs/design/0052-one-drop-planner.md §Decision): which
 * path a {@code DELETE} of a table takes — metadata only, synchronous purge, asynchronous purge or
 * soft drop — and what a malformed request or a repeated drop gets. A pure function; the Iceberg
 * REST route and the management route both call it with what they parsed and carry out its answer
 * through one service, so the two can never disagree.
 *
 * <p>The checks run in the order of docs/design/0052 §Decision; the first that applies decides.
 */
public final class DropPlanner {
  private DropPlanner() {}

  /**
   * What the request said, as received.
   *
   * @param purgeRequested the {@code purgeRequested} query parameter, null if absent
   * @param letheHeader {@code X-Lethe-Async-Purge}, null if absent
   * @param gravitinoHeader {@code X-Gravitino-Async-Purge}, null if absent
   */
  public record Request(String purgeRequested, String letheHeader, String gravitinoHeader) {}

  /**
   * What the server and catalog say.
   *
   * @param softDeleteEnabled whether drops are soft (soft deletion on)
   * @param asyncDefault the catalog property {@code async-purge.default}, null if unset
   * @param asyncAvailable whether this server runs the asynchronous purge
   */
  public record Settings(boolean softDeleteEnabled, String asyncDefault, boolean asyncAvailable) {}

  /** Whether the drop finds a live table (or view) of that name. */
  public enum Entry { LIVE, ABSENT }

  /** What is dropped: a table, or a view (no purge flag, no soft deletion, no catalog default). */
  public enum Kind { TABLE, VIEW }

  /** The decision. */
  public sealed interface Decision permits MetadataOnly, SyncPurge, AsyncPurge, SoftDrop, NotFound, Invalid {}

  /** Remove the entry (and its location claims); keep every file. 204. */
  public record MetadataOnly() implements Decision {}

  /** Remove the entry and run its cleanup job now, on the request thread. 204. */
  public record SyncPurge() implements Decision {}

  /** Remove the entry and enqueue its cleanup job for the workers. 204 at once. */
  public record AsyncPurge() implements Decision {}

  /** Keep the table restorable; the record captures {@code purgeRequested}. 204. */
  public record SoftDrop(boolean purgeRequested) implements Decision {}

  /** No live table: 404 with {@code message}; nothing changes. */
  public record NotFound(String message) implements Decision {}

  /** Malformed request: 400 with {@code message}; nothing changes. */
  public record Invalid(String message) implements Decision {}

  /**
   * A table drop whose entry is already known; the same answer as {@link #plan(Kind, Request,
   * Settings, Supplier, String)} for {@link Kind#TABLE}.
   *
   * @param table the table's name as the client wrote it, for messages
   */
  public static Decision plan(Request request, Settings settings, Entry entry, String table) {
    return plan(Kind.TABLE, request, settings, () -> entry, table);
  }

  /**
   * The decision of one drop request, asked once per request.
   *
   * @param kind what is dropped
   * @param entry looks the entry up; called only once the request is known to be well formed, so a
   *     malformed request is refused before (and even without) a lookup; not null
   * @param name the entry's name as the client wrote it, for messages
   */
  public static Decision plan(Kind kind, Request request, Settings settings, Supplier<Entry> entry, String name) {
    return kind == Kind.VIEW ? planView(request, settings, entry, name) : planTable(request, settings, entry, name);
  }

  /** A view: only an explicit async header (not the catalog default) removes its files. */
  private static Decision planView(Request request, Settings settings, Supplier<Entry> entry, String view) {
    AsyncPurgeHeader.Decision header = AsyncPurgeHeader.decide(request.letheHeader(), request.gravitinoHeader(), null);
    if (header instanceof AsyncPurgeHeader.Invalid invalid) {
      return new Invalid(invalid.message());
    }
    boolean async = header instanceof AsyncPurgeHeader.Async;
    if (async && !settings.asyncAvailable()) {
      return new Invalid("Asynchronous purge is not available on this server");
    }
    if (entry.get() == Entry.ABSENT) {
      return new NotFound("View does not exist: " + view);
    }
    return async ? new AsyncPurge() : new MetadataOnly();
  }

  private static Decision planTable(Request request, Settings settings, Supplier<Entry> entry, String table) {
    Boolean purge = parsePurgeRequested(request.purgeRequested());
    if (purge == null) {
      return new Invalid("Invalid purgeRequested: expected true or false: " + request.purgeRequested());
    }
    AsyncPurgeHeader.Decision header = AsyncPurgeHeader.decide(request.letheHeader(), request.gravitinoHeader(),
        settings.asyncDefault());
    if (header instanceof AsyncPurgeHeader.Invalid invalid) {
      return new Invalid(invalid.message());
    }
    if (entry.get() == Entry.ABSENT) {
      return new NotFound("Table does not exist: " + table);
    }
    if (settings.softDeleteEnabled()) {
      return new SoftDrop(purge);
    }
    if (!purge) {
      return new MetadataOnly();
    }
    if (header instanceof AsyncPurgeHeader.Async) {
      return settings.asyncAvailable()
          ? new AsyncPurge()
          : new Invalid("Asynchronous purge is not available on this server");
    }
    return new SyncPurge();
  }

  /** true/false for those words in any case, false when absent or empty, null when malformed. */
  static Boolean parsePurgeRequested(String v) {
    if (v == null || v.isEmpty()) {
      return Boolean.FALSE;
    }
    return switch (v.toLowerCase(Locale.ROOT)) {
      case "true" -> Boolean.TRUE;
      case "false" -> Boolean.FALSE;
      default -> null;
    };
  }
}
