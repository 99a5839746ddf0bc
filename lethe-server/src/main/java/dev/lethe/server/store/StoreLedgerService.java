package dev.lethe.server.store;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.server.auth.Principal;
import dev.lethe.server.auth.StoreAction;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.ledger.Ledger;
import dev.lethe.store.core.ledger.LedgerJson;
import dev.lethe.store.core.ledger.Peer;
import dev.lethe.store.core.ledger.PurgeEntry;
import dev.lethe.store.core.ledger.PurgeLogPage;
import dev.lethe.store.core.ledger.StoreIds;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The served store's ledger operations, each with its grant, for both transports: {@link
 * LedgerRoutes} (HTTP) and {@link GrpcStoreService} (gRPC) parse their requests and call these
 * (docs/design/0142-ledger-over-grpc.md). The grant is checked before a request body is read, so
 * an unauthorized caller learns nothing about its body. Bad input is an {@link
 * IllegalArgumentException} and changes nothing; a missing grant is as {@link StoreService} throws.
 *
 * <p>Thread-safe.
 */
final class StoreLedgerService {

  /** The ledger's id, its clock (ms since the epoch) and its last collect cutoff (empty: never). */
  record Info(String id, long now, Optional<Long> collectCutoff) {}

  private final StoreService service;

  StoreLedgerService(StoreService service) {
    this.service = Objects.requireNonNull(service, "service");
  }

  private Ledger ledger(Optional<Principal> auth, StoreAction action) {
    return service.ledger(auth, action, KeyPrefix.all());
  }

  /** Any principal (INFO). */
  Info info(Optional<Principal> auth) {
    Ledger l = ledger(auth, StoreAction.INFO);
    return new Info(l.storeId(), l.now(), l.collectCutoff());
  }

  /** Admins (PURGE); ordered by id. */
  List<Peer> peers(Optional<Principal> auth) {
    return ledger(auth, StoreAction.PURGE).peers();
  }

  /**
   * A writer (BLOB_WRITE) records the peer {@code body} gives, whose id must be {@code id}.
   *
   * @param body the peer's JSON object ({@link LedgerJson#peer(JsonNode)}), read after the grant
   * @throws IllegalArgumentException for an invalid id, an invalid peer or another peer's id
   */
  void recordPeer(Optional<Principal> auth, String id, Supplier<JsonNode> body) {
    StoreIds.check(id);
    Ledger l = ledger(auth, StoreAction.BLOB_WRITE);
    Peer p = LedgerJson.peer(body.get());
    if (!p.id().equals(id)) {
      throw new IllegalArgumentException("Invalid peer: its id '" + p.id() + "' is not the path's '" + id + "'");
    }
    l.recordPeer(p);
  }

  /** Admins (PURGE); false when the peer was not known. @throws IllegalArgumentException for an invalid id */
  boolean forgetPeer(Optional<Principal> auth, String id) {
    StoreIds.check(id);
    return ledger(auth, StoreAction.PURGE).forgetPeer(id);
  }

  /** A reader of {@code prefix} (LIST); its purge log entries, oldest first. */
  List<PurgeEntry> purged(Optional<Principal> auth, KeyPrefix prefix) {
    return service.ledger(auth, StoreAction.LIST, prefix).purged(prefix);
  }

  /**
   * A reader of {@code prefix} (LIST); one page of its purge log (docs/design/0157-purge-log-pages.md).
   *
   * @throws IllegalArgumentException for a size outside 1 to {@link PurgeLogPage#MAX_SIZE} or a stale cursor
   */
  PurgeLogPage purgedPage(Optional<Principal> auth, KeyPrefix prefix, Optional<String> after, int size) {
    PurgeLogPage.checkSize(size);
    return service.ledger(auth, StoreAction.LIST, prefix).purgedPage(prefix, after, size);
  }

  /** Admins (PURGE); {@code cutoff} is read after the grant. */
  void recordCollect(Optional<Principal> auth, LongSupplier cutoffMs) {
    ledger(auth, StoreAction.PURGE).recordCollect(cutoffMs.getAsLong());
  }

  /** Admins (PURGE); how many entries were removed. {@code before} is read after the grant. */
  int trimPurged(Optional<Principal> auth, LongSupplier beforeMs) {
    return ledger(auth, StoreAction.PURGE).trimPurged(beforeMs.getAsLong());
  }

  /**
   * {@code ms} if it is not negative.
   *
   * @throws IllegalArgumentException naming {@code field} otherwise
   */
  static long notNegative(long ms, String field) {
    if (ms < 0) {
      throw new IllegalArgumentException("Invalid " + field + ": " + ms + " (ms since the epoch, not negative)");
    }
    return ms;
  }
}
