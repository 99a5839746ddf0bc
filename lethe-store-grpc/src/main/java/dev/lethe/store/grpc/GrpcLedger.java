package dev.lethe.store.grpc;

import com.google.protobuf.ByteString;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.format.StrictJson;
import dev.lethe.store.core.ledger.Ledger;
import dev.lethe.store.core.ledger.LedgerJson;
import dev.lethe.store.core.ledger.Peer;
import dev.lethe.store.core.ledger.PurgeEntry;
import dev.lethe.store.core.ledger.PurgeLogPage;
import dev.lethe.store.grpc.proto.ForgetPeerRequest;
import dev.lethe.store.grpc.proto.LedgerInfoReply;
import dev.lethe.store.grpc.proto.LedgerInfoRequest;
import dev.lethe.store.grpc.proto.LedgerPeersRequest;
import dev.lethe.store.grpc.proto.PurgedReply;
import dev.lethe.store.grpc.proto.PurgedRequest;
import dev.lethe.store.grpc.proto.RecordCollectRequest;
import dev.lethe.store.grpc.proto.RecordPeerRequest;
import dev.lethe.store.grpc.proto.TrimPurgedRequest;
import dev.lethe.store.remote.ServerTooOldException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A server's ledger through its gRPC ledger calls (docs/design/0142-ledger-over-grpc.md), the
 * same operations and grants as the {@code /store/v1/ledger} routes. The server's store appends
 * to its own purge log when it purges, so the client never appends: {@link #appendPurged} is
 * refused. A server without the calls ({@code UNIMPLEMENTED}) is a {@link ServerTooOldException};
 * other failures map as {@link GrpcStore}'s calls do. An unreadable peer or entry from the server
 * is an {@link UncheckedIOException} naming it.
 */
final class GrpcLedger implements Ledger {

  private final GrpcStore store;

  GrpcLedger(GrpcStore store) {
    this.store = Objects.requireNonNull(store, "store");
  }

  private LedgerInfoReply info() {
    return store.ledgerCall("Cannot read the store's ledger", "LedgerInfo",
        s -> s.ledgerInfo(LedgerInfoRequest.getDefaultInstance()));
  }

  @Override
  public String storeId() {
    return info().getId();
  }

  @Override
  public long now() {
    return info().getNowMs();
  }

  @Override
  public List<Peer> peers() {
    String what = "Cannot list the store's peers";
    List<Peer> out = new ArrayList<>();
    for (ByteString p : store.ledgerCall(what, "LedgerPeers",
        s -> s.ledgerPeers(LedgerPeersRequest.getDefaultInstance())).getPeerJsonList()) {
      try {
        out.add(LedgerJson.peer(StrictJson.read(p.toByteArray(), "peer_json")));
      } catch (IllegalArgumentException e) {
        throw unreadable(what, "peer", e);
      }
    }
    return out;
  }

  @Override
  public void recordPeer(Peer peer) {
    RecordPeerRequest req = RecordPeerRequest.newBuilder().setId(peer.id())
        .setPeerJson(ByteString.copyFromUtf8(LedgerJson.peer(peer).toString())).build();
    store.ledgerCall("Cannot record peer " + peer.id(), "RecordPeer", s -> s.recordPeer(req));
  }

  @Override
  public boolean forgetPeer(String id) {
    return store.ledgerCall("Cannot forget peer " + id, "ForgetPeer",
        s -> s.forgetPeer(ForgetPeerRequest.newBuilder().setId(id).build())).getForgotten();
  }

  @Override
  public Optional<Long> collectCutoff() {
    LedgerInfoReply i = info();
    return i.hasCollectCutoffMs() ? Optional.of(i.getCollectCutoffMs()) : Optional.empty();
  }

  @Override
  public void recordCollect(long cutoffMs) {
    store.ledgerCall("Cannot record a collect", "RecordCollect",
        s -> s.recordCollect(RecordCollectRequest.newBuilder().setCutoffMs(cutoffMs).build()));
  }

  /** @throws UnsupportedOperationException always: the server's store logs its own purges */
  @Override
  public void appendPurged(PurgeEntry entry) {
    throw new UnsupportedOperationException("A remote store's purge log is written by the server's own purges");
  }

  /** Walks the server's pages (docs/design/0157-purge-log-pages.md); a server that does not page answers one. */
  @Override
  public List<PurgeEntry> purged(KeyPrefix prefix) {
    return PurgeLogPage.walk(after -> purgedPage(prefix, after, PurgeLogPage.MAX_SIZE));
  }

  @Override
  public PurgeLogPage purgedPage(KeyPrefix prefix, Optional<String> after, int size) {
    PurgeLogPage.checkSize(size);
    PurgedRequest.Builder b = PurgedRequest.newBuilder().setPageSize(size);
    if (prefix.namespace() != null) {
      b.setNamespace(prefix.namespace());
    }
    if (prefix.collection() != null) {
      b.setCollection(prefix.collection());
    }
    after.ifPresent(b::setPageToken);
    String what = "Cannot read the purge log";
    PurgedReply reply = store.ledgerCall(what, "Purged", s -> s.purged(b.build()));
    List<PurgeEntry> out = new ArrayList<>();
    for (String line : reply.getEntriesList()) {
      try {
        out.add(LedgerJson.entry(line));
      } catch (IllegalStateException e) {
        throw unreadable(what, "purge log entry", e);
      }
    }
    return new PurgeLogPage(out, reply.getNextPageToken().isEmpty() ? Optional.empty() : Optional.of(reply.getNextPageToken()));
  }

  @Override
  public int trimPurged(long purgedBeforeMs) {
    return store.ledgerCall("Cannot trim the purge log", "TrimPurged",
        s -> s.trimPurged(TrimPurgedRequest.newBuilder().setBeforeMs(purgedBeforeMs).build())).getRemoved();
  }

  private UncheckedIOException unreadable(String what, String thing, RuntimeException e) {
    return new UncheckedIOException(what + " on " + store.server(),
        new IOException("the server sent an unreadable " + thing + ": " + e.getMessage(), e));
  }
}
