package dev.lethe.server.auth;

import java.util.Objects;
import java.util.Optional;

/**
 * Who may do what to the store: one pure function of (principal, action, namespace)
 * (docs/design/0105-store-grants.md). No I/O, no store access: the store routes call it before
 * they look anything up, so a refusal says nothing about whether a key exists.
 *
 * <p>The rules: reads and listings need {@code store.read} on the namespace; consumer writes and
 * raw puts need {@code store.write}; a reset needs both; a purge, blob listing and blob removal
 * need a store admin ({@code "*"} in both store lists). Store write does not imply store read.
 */
public final class StoreGrants {

  /** The outcome of {@link #decide}. */
  public sealed interface Decision {}

  /** The principal may proceed. */
  public record Allow() implements Decision {}

  /**
   * The principal may not: HTTP 403.
   *
   * @param reason names the principal, the action and the namespace, never a key or a token
   */
  public record Deny(String reason) implements Decision {}

  private static final Allow ALLOW = new Allow();

  private StoreGrants() {}

  /**
   * Decides whether {@code principal} may perform {@code action}.
   *
   * @param principal the authenticated caller, not null
   * @param action what the request does, not null
   * @param namespace the namespace the request addresses; empty for the whole store and for the
   *     routes that name none (info, blobs)
   */
  public static Decision decide(Principal principal, StoreAction action, Optional<String> namespace) {
    Objects.requireNonNull(principal, "Cannot decide store access: principal is null");
    Objects.requireNonNull(action, "Cannot decide store access: action is null");
    Objects.requireNonNull(namespace, "Cannot decide store access: namespace is null");
    // a whole-store listing is granted only by "*": a grant of some namespaces covers no route spanning them all
    boolean read = covers(principal.storeRead(), namespace);
    boolean write = covers(principal.storeWrite(), namespace);
    boolean allowed = switch (action) {
      case INFO -> true;
      case READ, LIST -> read;
      case WRITE, PUT_RAW -> write;
      case RESET -> read && write;
      case PURGE, BLOB_ADMIN -> principal.isStoreAdmin();
      case BLOB_READ -> !principal.storeRead().isEmpty();
      case BLOB_WRITE -> !principal.storeWrite().isEmpty();
    };
    if (allowed) {
      return ALLOW;
    }
    return new Deny(reason(principal, action, namespace));
  }

  private static boolean covers(java.util.Set<String> grants, Optional<String> namespace) {
    return namespace.isPresent() ? Principal.grants(grants, namespace.get()) : grants.contains(Principal.ANY_CATALOG);
  }

  private static String reason(Principal principal, StoreAction action, Optional<String> namespace) {
    String who = "Principal '" + principal.name() + "'";
    String where = namespace.map(ns -> "store namespace '" + ns + "'").orElse("the whole store");
    return switch (action) {
      case INFO -> who + " may read the store's info"; // never denied
      case READ, LIST -> who + " has no store.read grant on " + where + namespace.map(ns -> "").orElse(
          ": listing every namespace needs \"*\" in store.read; list one namespace instead"
              + " (/store/v1/records/{ns}, or --namespace NS)");
      case WRITE, PUT_RAW -> who + " has no store.write grant on " + where;
      case RESET -> who + " needs both store.read and store.write on " + where + " to reset it";
      case PURGE -> who + " may not purge: purge (and collect) needs a store admin (\"*\" in store.read and store.write)";
      case BLOB_ADMIN -> who + " may not list or remove blobs: that needs a store admin (\"*\" in store.read and store.write)";
      case BLOB_READ -> who + " has no store.read grant, so may read no blob";
      case BLOB_WRITE -> who + " has no store.write grant, so may upload no blob";
    };
  }
}
