package dev.lethe.store.grpc;

import com.google.protobuf.ByteString;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.Conflict;
import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.Deleted;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.NotFound;
import dev.lethe.store.core.Page;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.RawPut;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.RevisionHash;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.blob.BlobInfo;
import dev.lethe.store.core.blob.BlobRef;
import dev.lethe.store.core.blob.BlobStore;
import dev.lethe.store.core.format.CorruptRecordException;
import dev.lethe.store.core.format.DraftJson;
import dev.lethe.store.core.format.RecordJson;
import dev.lethe.store.core.format.RevisionJson;
import dev.lethe.store.core.planner.ConsumerPutPlanner;
import dev.lethe.store.core.planner.RawPutPlanner;
import dev.lethe.store.grpc.proto.BatchOutcome;
import dev.lethe.store.grpc.proto.BlobRequest;
import dev.lethe.store.grpc.proto.DeleteReply;
import dev.lethe.store.grpc.proto.DeleteRequest;
import dev.lethe.store.grpc.proto.Expected;
import dev.lethe.store.grpc.proto.InfoReply;
import dev.lethe.store.grpc.proto.InfoRequest;
import dev.lethe.store.grpc.proto.KeyRequest;
import dev.lethe.store.grpc.proto.LetheStoreGrpc;
import dev.lethe.store.grpc.proto.ListBlobsReply;
import dev.lethe.store.grpc.proto.ListBlobsRequest;
import dev.lethe.store.grpc.proto.ListChunk;
import dev.lethe.store.grpc.proto.ListReply;
import dev.lethe.store.grpc.proto.ListRequest;
import dev.lethe.store.grpc.proto.PurgeRequest;
import dev.lethe.store.grpc.proto.PutBlobReply;
import dev.lethe.store.grpc.proto.PutBlobRequest;
import dev.lethe.store.grpc.proto.PutRawBatchReply;
import dev.lethe.store.grpc.proto.PutRawBatchRequest;
import dev.lethe.store.grpc.proto.PutReply;
import dev.lethe.store.grpc.proto.PutRequest;
import dev.lethe.store.grpc.proto.RecordReply;
import dev.lethe.store.grpc.proto.RemoveBlobRequest;
import dev.lethe.store.remote.BearerToken;
import dev.lethe.store.remote.ServerTooOldException;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ForwardingClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A {@link Store} on a {@code lethe server}'s gRPC port, for {@code grpc://host:port} store URIs
 * (docs/design/0141-grpc-transport.md).
 *
 * <p>Every decision is the server's store's; this class maps calls to RPCs and answers to results:
 * a reply is Committed / Deleted, {@code ABORTED} is a {@link Conflict} with the stored record of
 * its {@code lethe-record-bin} trailer, {@code FAILED_PRECONDITION} on a put is {@link NotFound}.
 * Each replication method calls only its raw RPC and never a consumer one: {@code UNIMPLEMENTED}
 * there is a {@link ServerTooOldException}. Other failures: {@code INVALID_ARGUMENT} is an {@link
 * IllegalArgumentException} with the server's message (nothing written); {@code INTERNAL} naming a
 * corrupt record is a {@link CorruptRecordException}; anything else ({@code UNAUTHENTICATED},
 * {@code PERMISSION_DENIED}, {@code UNAVAILABLE}, a deadline) is an {@link UncheckedIOException}
 * naming the server and the status. Every record received is checked with {@link
 * RevisionHash#check}. The token goes in every call's {@code authorization} header and in no
 * message. {@link #ledger()} is the server's ledger over the ledger calls ({@link GrpcLedger}).
 *
 * <p>Thread-safe; one HTTP/2 connection carries every call. {@link #close()} shuts it down.
 */
public final class GrpcStore implements Store, AutoCloseable {

  /** The URI scheme, {@code grpc://}. */
  public static final String SCHEME = "grpc://";
  /** Longest a call may take, answer included, in seconds. */
  public static final long DEADLINE_SECONDS = 300;
  /**
   * Largest message received or sent, bytes: a page of records the store cut at its byte budget,
   * or one record as large as a server's request limit allows.
   */
  public static final int MAX_MESSAGE_BYTES = 128 << 20;
  /** Bytes of one batched raw put, well under the server's message limit. */
  static final int BATCH_BYTES = 1 << 20;
  private static final int WALK_PAGE = 500;

  private final ManagedChannel channel;
  private final LetheStoreGrpc.LetheStoreBlockingStub stub;
  private final String server;
  private final RecordJson json = new RecordJson();
  private final Blobs blobs = new Blobs();
  private final GrpcLedger ledger = new GrpcLedger(this);
  private volatile InfoReply info;

  private GrpcStore(ManagedChannel channel, Channel intercepted, String server) {
    this.channel = channel;
    this.stub = LetheStoreGrpc.newBlockingStub(intercepted).withMaxInboundMessageSize(MAX_MESSAGE_BYTES)
        .withMaxOutboundMessageSize(MAX_MESSAGE_BYTES);
    this.server = server;
  }

  /** Returns whether {@code uri} names a gRPC store. */
  public static boolean supports(String uri) {
    return uri != null && uri.startsWith(SCHEME);
  }

  /**
   * Opens a store on {@code grpc://host:port}; nothing is sent until the first call.
   *
   * @param uri {@code grpc://host:port} (plaintext HTTP/2), no path, query, fragment or user info
   * @param token the bearer token, empty for none; never logged
   * @throws IllegalArgumentException for another URI, or a token that is not visible ASCII
   */
  public static GrpcStore open(String uri, Optional<String> token) {
    String shown = uri == null ? "null"
        : uri.replaceAll("//[^/@]*@", "//***@").replaceAll("\\?[^#]*", "?***").replaceAll("#.*$", "#***");
    URI u;
    try {
      u = new URI(uri);
    } catch (URISyntaxException | NullPointerException e) {
      throw new IllegalArgumentException("Invalid store URI '" + shown + "': not a URL");
    }
    if (!supports(uri) || u.getHost() == null || u.getPort() < 0) {
      throw new IllegalArgumentException("Invalid store URI '" + shown + "': expected grpc://host:port");
    }
    if (u.getRawQuery() != null || u.getRawFragment() != null || u.getRawUserInfo() != null
        || !(u.getRawPath() == null || u.getRawPath().isEmpty() || u.getRawPath().equals("/"))) {
      throw new IllegalArgumentException("Invalid store URI '" + shown
          + "': no path, query, fragment or user info (pass a token with --token or LETHE_TOKEN)");
    }
    Optional<String> t = token.filter(s -> !s.isBlank());
    t.ifPresent(value -> BearerToken.check(value, "the token given"));
    ManagedChannel channel = NettyChannelBuilder.forAddress(u.getHost(), u.getPort())
        .usePlaintext()
        .maxInboundMessageSize(MAX_MESSAGE_BYTES)
        .build();
    Channel intercepted = t.isEmpty() ? channel : ClientInterceptors.intercept(channel, bearer(t.get()));
    return new GrpcStore(channel, intercepted, SCHEME + u.getHost() + ":" + u.getPort());
  }

  private static ClientInterceptor bearer(String token) {
    String value = "Bearer " + token;
    return new ClientInterceptor() {
      @Override
      public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
        return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
          @Override
          public void start(Listener<A> listener, Metadata headers) {
            headers.put(GrpcWire.AUTHORIZATION, value);
            super.start(listener, headers);
          }
        };
      }
    };
  }

  private LetheStoreGrpc.LetheStoreBlockingStub call() {
    return stub.withDeadlineAfter(DEADLINE_SECONDS, TimeUnit.SECONDS);
  }

  // ---- consumer surface ---------------------------------------------------------------------

  @Override
  public Optional<Record> get(RecordKey key) {
    RecordReply r = unary("Cannot read " + key, "Get", false, () -> call().get(keyRequest(key)));
    return r.getFound() ? Optional.of(decode(r.getRecordJson(), key, "Cannot read " + key)) : Optional.empty();
  }

  @Override
  public List<Record> list(KeyPrefix prefix) {
    List<Record> out = new ArrayList<>();
    Optional<RecordKey> after = Optional.empty();
    do {
      Page p = listPage(prefix, after, WALK_PAGE);
      out.addAll(p.records());
      after = p.next();
    } while (after.isPresent());
    return out;
  }

  @Override
  public Page listPage(KeyPrefix prefix, Optional<RecordKey> after, int limit) {
    Page.checkLimit(limit);
    String what = "Cannot list " + prefix;
    ListReply r = unary(what, "List", false, () -> call().list(listRequest(prefix, after, limit)));
    return page(r.getRecordJsonList(), r.getMore(), prefix, after, limit, what);
  }

  @Override
  public PutResult put(Record record, Optional<Revision> expected) {
    ConsumerPutPlanner.validate(record);
    RecordKey key = record.key();
    PutRequest req = putRequest(key, DraftJson.encode(record, Optional.empty()), expected);
    return putResult(key, "Put", false, () -> call().put(req));
  }

  @Override
  public DeleteResult deleteAs(RecordKey key, Optional<Revision> expected, Optional<String> author) {
    DeleteRequest.Builder b = DeleteRequest.newBuilder().setKey(key.toString());
    expected.ifPresent(e -> b.setExpected(expected(e)));
    author.ifPresent(a -> b.setAuthorJson(com.fasterxml.jackson.databind.node.TextNode.valueOf(a).toString()));
    return deleteResult(key, "Cannot delete " + key, "Delete", false, () -> call().delete(b.build()));
  }

  // ---- replication surface ------------------------------------------------------------------

  @Override
  public Optional<Record> getRaw(RecordKey key) {
    RecordReply r = unary("Cannot read " + key, "GetRaw", true, () -> call().getRaw(keyRequest(key)));
    return r.getFound() ? Optional.of(decode(r.getRecordJson(), key, "Cannot read " + key)) : Optional.empty();
  }

  /** Every raw record under {@code prefix}, from one server-streamed {@code ListRaw}. */
  @Override
  public List<Record> listRaw(KeyPrefix prefix) {
    String what = "Cannot list " + prefix;
    return unary(what, "ListRaw", true, () -> {
      Iterator<ListChunk> chunks = call().listRaw(listRequest(prefix, Optional.empty(), 0));
      List<Record> out = new ArrayList<>();
      while (chunks.hasNext()) {
        ListChunk c = chunks.next();
        Optional<RecordKey> last = out.isEmpty() ? Optional.empty() : Optional.of(out.get(out.size() - 1).key());
        out.addAll(page(c.getRecordJsonList(), false, prefix, last, Integer.MAX_VALUE, what).records());
      }
      return out;
    });
  }

  @Override
  public Page listRawPage(KeyPrefix prefix, Optional<RecordKey> after, int limit) {
    Page.checkLimit(limit);
    String what = "Cannot list " + prefix;
    return unary(what, "ListRaw", true, () -> {
      Iterator<ListChunk> chunks = call().listRaw(listRequest(prefix, after, limit));
      List<ByteString> records = new ArrayList<>();
      boolean more = false;
      while (chunks.hasNext()) {
        ListChunk c = chunks.next();
        records.addAll(c.getRecordJsonList());
        more = c.getMore();
      }
      return page(records, more, prefix, after, limit, what);
    });
  }

  @Override
  public PutResult putRaw(Record record, Optional<Revision> expected) {
    RawPutPlanner.validate(record);
    RecordKey key = record.key();
    PutRequest req = putRequest(key, json.encode(record), expected);
    return putResult(key, "PutRaw", true, () -> call().putRaw(req));
  }

  /**
   * Raw puts in as few {@code PutRawBatch} calls as the server allows: one per run of items in
   * one namespace, at most the server's {@code max_batch_items} and about {@value #BATCH_BYTES}
   * bytes each. The server decides each item as its own {@code putRaw}.
   */
  @Override
  public List<PutResult> putRawBatch(List<RawPut> items) {
    items.forEach(item -> RawPutPlanner.validate(item.record()));
    int max = Math.max(1, info().getMaxBatchItems());
    List<PutResult> out = new ArrayList<>(items.size());
    int from = 0;
    while (from < items.size()) {
      String ns = items.get(from).record().key().namespace();
      PutRawBatchRequest.Builder b = PutRawBatchRequest.newBuilder().setNamespace(ns);
      List<RawPut> chunk = new ArrayList<>();
      long bytes = 0;
      while (from < items.size() && chunk.size() < max && items.get(from).record().key().namespace().equals(ns)) {
        RawPut item = items.get(from);
        PutRequest p = putRequest(item.record().key(), json.encode(item.record()), item.expected());
        if (!chunk.isEmpty() && bytes + p.getSerializedSize() > BATCH_BYTES) {
          break;
        }
        b.addItems(p);
        bytes += p.getSerializedSize();
        chunk.add(item);
        from++;
      }
      String what = "Cannot put a batch of " + chunk.size() + " records from " + chunk.get(0).record().key();
      PutRawBatchReply reply = unary(what, "PutRawBatch", true, () -> call().putRawBatch(b.build()));
      if (reply.getOutcomesCount() != chunk.size()) {
        throw new UncheckedIOException(what + " on " + server, new IOException(
            "the server sent " + reply.getOutcomesCount() + " outcomes for " + chunk.size() + " items"));
      }
      for (int i = 0; i < chunk.size(); i++) {
        BatchOutcome o = reply.getOutcomes(i);
        RecordKey key = chunk.get(i).record().key();
        out.add(switch (o.getKind()) {
          case COMMITTED -> new Committed(decode(o.getRecordJson(), key, what));
          case CONFLICT -> new Conflict(decode(o.getRecordJson(), key, what));
          case NOT_FOUND -> new NotFound();
          default -> throw new UncheckedIOException(what + " on " + server,
              new IOException("the server sent an unknown outcome " + o.getKind()));
        });
      }
    }
    return out;
  }

  @Override
  public DeleteResult purge(RecordKey key, Optional<Revision> expected) {
    PurgeRequest.Builder b = PurgeRequest.newBuilder().setKey(key.toString());
    expected.ifPresent(e -> b.setExpected(expected(e)));
    return deleteResult(key, "Cannot purge " + key, "Purge", true, () -> call().purge(b.build()));
  }

  @Override
  public BlobStore blobs() {
    return blobs;
  }

  /** The server's ledger over the gRPC ledger calls (docs/design/0142-ledger-over-grpc.md). */
  @Override
  public dev.lethe.store.core.ledger.Ledger ledger() {
    return ledger;
  }

  /**
   * One ledger call: failures map as {@link #failure} maps a replication call's, {@code
   * UNIMPLEMENTED} being a {@link ServerTooOldException} that asks for the gRPC ledger calls.
   */
  <T> T ledgerCall(String what, String rpc, Function<LetheStoreGrpc.LetheStoreBlockingStub, T> send) {
    try {
      return send.apply(call());
    } catch (StatusRuntimeException e) {
      throw failure(e, what, rpc, true, "the gRPC ledger calls");
    }
  }

  /** The server's address, {@code grpc://host:port}. */
  String server() {
    return server;
  }

  /** The server's ancestor cap, read once ({@code Info}). */
  @Override
  public int ancestorCap() {
    int cap = info().getAncestorCap();
    if (cap < 1) {
      throw new UncheckedIOException("Cannot read the store's settings on " + server,
          new IOException("the server sent no ancestor cap of at least 1: " + cap));
    }
    return cap;
  }

  private InfoReply info() {
    InfoReply i = info;
    if (i == null) {
      i = unary("Cannot read the store's settings", "Info", false, () -> call().info(InfoRequest.getDefaultInstance()));
      info = i;
    }
    return i;
  }

  /** Shuts the connection down, waiting up to 5 s for calls in flight. */
  @Override
  public void close() {
    channel.shutdown();
    try {
      if (!channel.awaitTermination(5, TimeUnit.SECONDS)) {
        channel.shutdownNow();
      }
    } catch (InterruptedException e) {
      channel.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "GrpcStore[" + server + "]";
  }

  // ---- mapping ------------------------------------------------------------------------------

  private static KeyRequest keyRequest(RecordKey key) {
    return KeyRequest.newBuilder().setKey(key.toString()).build();
  }

  private static Expected expected(Revision r) {
    return Expected.newBuilder().setRevision(RevisionJson.format(r)).build();
  }

  private static PutRequest putRequest(RecordKey key, byte[] body, Optional<Revision> expected) {
    PutRequest.Builder b = PutRequest.newBuilder().setKey(key.toString()).setRecordJson(ByteString.copyFrom(body));
    expected.ifPresent(e -> b.setExpected(expected(e)));
    return b.build();
  }

  private static ListRequest listRequest(KeyPrefix prefix, Optional<RecordKey> after, int limit) {
    Objects.requireNonNull(prefix, "prefix");
    ListRequest.Builder b = ListRequest.newBuilder().setPageSize(limit);
    if (prefix.namespace() != null) {
      b.setNamespace(prefix.namespace());
    }
    if (prefix.collection() != null) {
      b.setCollection(prefix.collection());
    }
    after.ifPresent(a -> b.setStartAfter(a.toString()));
    return b.build();
  }

  private PutResult putResult(RecordKey key, String rpc, boolean raw, Supplier<PutReply> send) {
    String what = "Cannot put " + key;
    try {
      PutReply r = send.get();
      return new Committed(decode(r.getRecordJson(), key, what));
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.ABORTED) {
        return new Conflict(conflictRecord(e, key, what));
      }
      if (e.getStatus().getCode() == Status.Code.FAILED_PRECONDITION) {
        return new NotFound();
      }
      throw failure(e, what, rpc, raw);
    }
  }

  private DeleteResult deleteResult(RecordKey key, String what, String rpc, boolean raw, Supplier<DeleteReply> send) {
    try {
      DeleteReply r = send.get();
      return r.getWritten() ? new Deleted(Optional.of(decode(r.getRecordJson(), key, what))) : Deleted.nothingWritten();
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.ABORTED) {
        return new Conflict(conflictRecord(e, key, what));
      }
      throw failure(e, what, rpc, raw);
    }
  }

  private Record conflictRecord(StatusRuntimeException e, RecordKey key, String what) {
    Metadata trailers = e.getTrailers();
    byte[] stored = trailers == null ? null : trailers.get(GrpcWire.CONFLICT_RECORD);
    if (stored == null) {
      throw new UncheckedIOException(what + " on " + server,
          new IOException("the server answered ABORTED without the stored record: " + e.getStatus().getDescription()));
    }
    return decode(ByteString.copyFrom(stored), key, what);
  }

  private <T> T unary(String what, String rpc, boolean raw, Supplier<T> send) {
    try {
      return send.get();
    } catch (StatusRuntimeException e) {
      throw failure(e, what, rpc, raw);
    }
  }

  /**
   * The exception for a status no outcome maps: INVALID_ARGUMENT → {@link
   * IllegalArgumentException}; UNIMPLEMENTED on a replication call → {@link
   * ServerTooOldException}; INTERNAL naming a corrupt record → {@link CorruptRecordException};
   * anything else → {@link UncheckedIOException} naming the status.
   */
  RuntimeException failure(StatusRuntimeException e, String what, String rpc, boolean raw) {
    return failure(e, what, rpc, raw, "the gRPC replication calls");
  }

  private RuntimeException failure(StatusRuntimeException e, String what, String rpc, boolean raw, String upgrade) {
    Status s = e.getStatus();
    String message = s.getDescription() == null ? "" : s.getDescription();
    Metadata trailers = e.getTrailers();
    String corrupt = trailers == null ? null : trailers.get(GrpcWire.CORRUPT_KEY);
    if (s.getCode() == Status.Code.INTERNAL && corrupt != null) {
      try {
        return new CorruptRecordException(RecordKey.parse(corrupt), server, "the server reports: " + message);
      } catch (IllegalArgumentException badKey) {
        return new CorruptRecordException(server, new IOException(message));
      }
    }
    return switch (s.getCode()) {
      case INVALID_ARGUMENT -> new IllegalArgumentException(message);
      case UNIMPLEMENTED -> raw
          ? new ServerTooOldException(what, server, "gRPC UNIMPLEMENTED on " + rpc, upgrade)
          : new UncheckedIOException(what + " on " + server,
              new IOException("gRPC UNIMPLEMENTED on " + rpc + ": " + message));
      default -> new UncheckedIOException(what + " on " + server, new IOException("gRPC " + s.getCode() + ": " + message,
          s.getCause()));
    };
  }

  private Record decode(ByteString bytes, RecordKey key, String what) {
    Record record;
    try {
      record = json.decode(bytes.toByteArray());
    } catch (IllegalArgumentException e) {
      throw new UncheckedIOException(what + " on " + server,
          new IOException("the server sent an unreadable record: " + e.getMessage(), e));
    }
    if (!record.key().equals(key)) {
      throw new UncheckedIOException(what + " on " + server,
          new IOException("the server sent the record of " + record.key() + " for " + key));
    }
    return RevisionHash.check(record, server + " (as the server sent it)");
  }

  /**
   * A page as {@code RemoteStore} checks it: at most {@code limit} records, each under {@code
   * prefix}, strictly ascending and after {@code after}.
   */
  private Page page(List<ByteString> encoded, boolean more, KeyPrefix prefix, Optional<RecordKey> after, int limit,
      String what) {
    List<Record> records = new ArrayList<>(encoded.size());
    RecordKey previous = after.orElse(null);
    try {
      if (encoded.size() > limit) {
        throw new IllegalArgumentException(encoded.size() + " records, " + limit + " asked for");
      }
      for (ByteString b : encoded) {
        Record r = json.decode(b.toByteArray());
        if (!prefix.matches(r.key())) {
          throw new IllegalArgumentException("record " + r.key() + " is not under " + prefix);
        }
        if (previous != null && r.key().compareTo(previous) <= 0) {
          throw new IllegalArgumentException("record " + r.key() + " does not come after " + previous);
        }
        previous = r.key();
        records.add(RevisionHash.check(r, server + " (as the server sent it)"));
      }
    } catch (IllegalArgumentException e) {
      throw new UncheckedIOException(what + " on " + server,
          new IOException("the server sent an unreadable page: " + e.getMessage(), e));
    }
    boolean next = more && !records.isEmpty();
    return new Page(records, next ? Optional.of(records.get(records.size() - 1).key()) : Optional.empty());
  }

  /** The server's blobs over the blob RPCs. */
  private final class Blobs implements BlobStore {

    @Override
    public BlobRef put(byte[] content) {
      String hash = dev.lethe.store.core.ContentHash.of(content);
      PutBlobReply r = unary("Cannot store blob " + hash, "PutBlob", false, () -> call().putBlob(
          PutBlobRequest.newBuilder().setHash(hash).setContent(ByteString.copyFrom(content)).build()));
      return new BlobRef(r.getHash(), r.getLength());
    }

    @Override
    public Optional<byte[]> get(String hash) {
      var r = unary("Cannot read blob " + hash, "GetBlob", false,
          () -> call().getBlob(BlobRequest.newBuilder().setHash(hash).build()));
      return r.getFound() ? Optional.of(r.getContent().toByteArray()) : Optional.empty();
    }

    @Override
    public boolean contains(String hash) {
      return unary("Cannot read blob " + hash, "HasBlob", false,
          () -> call().hasBlob(BlobRequest.newBuilder().setHash(hash).build())).getFound();
    }

    @Override
    public List<BlobInfo> list() {
      List<BlobInfo> out = new ArrayList<>();
      String after = "";
      boolean more;
      do {
        String from = after;
        ListBlobsReply r = unary("Cannot list blobs", "ListBlobs", false,
            () -> call().listBlobs(ListBlobsRequest.newBuilder().setStartAfter(from).setPageSize(WALK_PAGE).build()));
        r.getBlobsList().forEach(b -> out.add(new BlobInfo(b.getHash(), b.getLength(), b.getStoredAtMs())));
        more = r.getMore() && r.getBlobsCount() > 0;
        if (more) {
          after = r.getBlobs(r.getBlobsCount() - 1).getHash();
        }
      } while (more);
      return out;
    }

    @Override
    public boolean remove(String hash, long storedAtOrBeforeMs) {
      return unary("Cannot remove blob " + hash, "RemoveBlob", false, () -> call().removeBlob(
          RemoveBlobRequest.newBuilder().setHash(hash).setStoredAtOrBeforeMs(storedAtOrBeforeMs).build())).getRemoved();
    }
  }
}
