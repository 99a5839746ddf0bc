package dev.lethe.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.Deleted;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.ledger.Ledger;
import dev.lethe.store.core.ledger.LedgerJson;
import dev.lethe.store.core.ledger.Peer;
import dev.lethe.store.grpc.GrpcStore;
import com.google.protobuf.ByteString;
import dev.lethe.store.grpc.proto.ForgetPeerRequest;
import dev.lethe.store.grpc.proto.LetheStoreGrpc;
import dev.lethe.store.grpc.proto.PurgedRequest;
import dev.lethe.store.grpc.proto.RecordPeerRequest;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store's ledger over gRPC against a real server (docs/design/0142-ledger-over-grpc.md): each
 * ledger call × {no token, wrong token, reader, other namespace, writer, admin} is allowed exactly
 * when its HTTP route is (the routes are the oracle); bad input is INVALID_ARGUMENT and changes
 * nothing; and after a seeded random run of ledger writes over gRPC, every gRPC read equals the
 * served store's own ledger.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GrpcLedgerTest {

  enum Caller {
    NONE(null), WRONG("wrong-token"), READER("reader-token"), OTHER("other-token"), WRITER("writer-token"),
    ADMIN("admin-token");

    final String token;

    Caller(String token) {
      this.token = token;
    }
  }

  @TempDir static Path dir;
  LetheServer server;
  Store store;
  final HttpClient http = HttpClient.newHttpClient();
  final Map<Caller, GrpcStore> grpc = new EnumMap<>(Caller.class);

  @BeforeAll
  void start() throws Exception {
    Path auth = dir.resolve("auth.yaml");
    Files.writeString(auth, "principals:\n"
        + principal("reader", "    store:\n      read: [team]\n")
        + principal("other", "    store:\n      read: [other]\n      write: [other]\n")
        + principal("writer", "    store:\n      read: [team]\n      write: [team]\n")
        + principal("admin", "    read: [\"*\"]\n    write: [\"*\"]\n"));
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 4, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, auth, Map.of(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0")));
    store = server.store();
    for (Caller c : Caller.values()) {
      grpc.put(c, GrpcStore.open(server.grpcStoreUri(), Optional.ofNullable(c.token)));
    }
  }

  private static String principal(String name, String grants) {
    return "  - name: " + name + "\n    token-sha256: " + ContentHash.ofUtf8(name + "-token") + "\n" + grants;
  }

  @AfterAll
  void stop() {
    grpc.values().forEach(GrpcStore::close);
    server.close();
  }

  private int http(Caller c, String method, String path, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/store/v1/ledger" + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    if (c.token != null) {
      b.header("Authorization", "Bearer " + c.token);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString()).statusCode();
  }

  /** A ledger operation: its HTTP request and the same operation on a gRPC ledger. */
  record Op(String name, String method, String path, String body, Consumer<Ledger> grpc, int reader, int other,
      int writer, int admin) {
    /** 200 for allowed, else 401 or 403 (docs/design/0150-store-identity-and-peers.md "Routes"). */
    int expected(Caller c) {
      return switch (c) {
        case NONE, WRONG -> 401;
        case READER -> reader;
        case OTHER -> other;
        case WRITER -> writer;
        case ADMIN -> admin;
      };
    }
  }

  private static final String PEER = "0b6c5c1e-3a9f-4d2b-8c7e-1f2a3b4c5d6e";

  private List<Op> ops() {
    Peer peer = new Peer(PEER, "grpc://peer:1", 10L, 5L, -3L);
    return List.of(
        new Op("info", "GET", "", null, Ledger::storeId, 200, 200, 200, 200),
        new Op("peers", "GET", "/peers", null, Ledger::peers, 403, 403, 403, 200),
        new Op("record peer", "PUT", "/peers/" + PEER, LedgerJson.peer(peer).toString(), l -> l.recordPeer(peer),
            403, 200, 200, 200),
        new Op("forget peer", "DELETE", "/peers/" + PEER, null, l -> l.forgetPeer(PEER), 403, 403, 403, 200),
        new Op("purged namespace", "GET", "/purged/team", null, l -> l.purged(new KeyPrefix("team", null)),
            200, 403, 200, 200),
        new Op("purged collection", "GET", "/purged/team/c", null, l -> l.purged(new KeyPrefix("team", "c")),
            200, 403, 200, 200),
        new Op("purged whole store", "GET", "/purged", null, l -> l.purged(KeyPrefix.all()), 403, 403, 403, 200),
        new Op("collect", "POST", "/collect", "{\"cutoff\":7}", l -> l.recordCollect(7L), 403, 403, 403, 200),
        new Op("trim", "POST", "/trim", "{\"before\":1}", l -> l.trimPurged(1L), 403, 403, 403, 200));
  }

  /** What a gRPC call came to, in the HTTP route's terms: 2xx, 401 or 403. */
  private static int outcome(Runnable call) {
    try {
      call.run();
      return 200;
    } catch (UncheckedIOException e) {
      String m = String.valueOf(e.getCause() == null ? e.getMessage() : e.getCause().getMessage());
      if (m.contains("UNAUTHENTICATED")) {
        return 401;
      }
      if (m.contains("PERMISSION_DENIED")) {
        return 403;
      }
      throw e;
    }
  }

  @Test
  void everyLedgerCallHasItsRoutesGrant() throws Exception {
    List<String> mismatches = new ArrayList<>();
    for (Op op : ops()) {
      for (Caller c : Caller.values()) {
        int status = http(c, op.method(), op.path(), op.body());
        int viaHttp = status / 100 == 2 ? 200 : status;
        int viaGrpc = outcome(() -> op.grpc().accept(grpc.get(c).ledger()));
        int expected = op.expected(c);
        if (viaHttp != viaGrpc || viaGrpc != expected) {
          mismatches.add(op.name() + " as " + c + ": HTTP " + status + ", gRPC " + viaGrpc + ", expected " + expected);
        }
      }
    }
    assertThat(mismatches).isEmpty();
  }

  @Test
  void badInputIsInvalidArgumentAndChangesNothing() {
    Ledger admin = grpc.get(Caller.ADMIN).ledger();
    Optional<Long> cutoff = store.ledger().collectCutoff();
    List<Peer> peers = store.ledger().peers();
    assertThatThrownBy(() -> admin.recordCollect(-1L)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cutoff_ms");
    assertThatThrownBy(() -> admin.trimPurged(-5L)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("before_ms");
    assertThatThrownBy(() -> admin.forgetPeer("not-a-uuid")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Invalid store id");
    // what the client cannot send, sent by a raw stub
    Metadata headers = new Metadata();
    headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer admin-token");
    URI u = URI.create(server.grpcStoreUri());
    ManagedChannel channel = ManagedChannelBuilder.forAddress(u.getHost(), u.getPort()).usePlaintext().build();
    try {
      LetheStoreGrpc.LetheStoreBlockingStub raw = LetheStoreGrpc.newBlockingStub(channel)
          .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
      Peer p = new Peer(PEER, "grpc://peer:1", 1L, null, 0L);
      String other = "1b6c5c1e-3a9f-4d2b-8c7e-1f2a3b4c5d6e";
      Map<String, Runnable> bad = new java.util.LinkedHashMap<>();
      bad.put("a collection without a namespace",
          () -> raw.purged(PurgedRequest.newBuilder().setCollection("c").build()));
      bad.put("another peer's id", () -> raw.recordPeer(RecordPeerRequest.newBuilder().setId(other)
          .setPeerJson(ByteString.copyFromUtf8(LedgerJson.peer(p).toString())).build()));
      bad.put("a peer that is not JSON", () -> raw.recordPeer(RecordPeerRequest.newBuilder().setId(PEER)
          .setPeerJson(ByteString.copyFromUtf8("{\"id\":")).build()));
      bad.put("a peer without its uri", () -> raw.recordPeer(RecordPeerRequest.newBuilder().setId(PEER)
          .setPeerJson(ByteString.copyFromUtf8("{\"id\":\"" + PEER + "\",\"lastSync\":1,\"clockOffset\":0}")).build()));
      bad.put("no id", () -> raw.forgetPeer(ForgetPeerRequest.getDefaultInstance()));
      bad.forEach((what, call) -> assertThatThrownBy(call::run).as(what).isInstanceOf(StatusRuntimeException.class)
          .satisfies(e -> assertThat(((StatusRuntimeException) e).getStatus().getCode()).as(what)
              .isEqualTo(Status.Code.INVALID_ARGUMENT)));
    } finally {
      channel.shutdownNow();
    }
    assertThat(store.ledger().collectCutoff()).isEqualTo(cutoff);
    assertThat(store.ledger().peers()).isEqualTo(peers);
  }

  /** docs/design/0151-purge-log.md "Trimming": the rule of the CLI's exit 2 holds on HTTP and gRPC too. */
  @Test
  void aTrimPastTheLastCollectsCutoffIs400OverHttpAndInvalidArgumentOverGrpcAndRemovesNothing() throws Exception {
    RecordKey key = new RecordKey("team", "trim", "k" + System.nanoTime());
    Record r = ((Committed) store.put(Record.draft(key, Kind.DOCUMENT, Body.Inline.text("v"), Meta.byAuthor("a")),
        Optional.empty())).record();
    Record t = ((Deleted) store.delete(key, Optional.of(r.revision()))).tombstone().orElseThrow();
    store.purge(key, Optional.of(t.revision()));
    long purgedAt = store.ledger().purged(KeyPrefix.all()).stream().filter(e -> e.key().equals(key))
        .findFirst().orElseThrow().purgedAt();
    store.ledger().recordCollect(purgedAt); // the last collect's cutoff: the entry is not before it
    int entries = store.ledger().purged(KeyPrefix.all()).size();

    HttpRequest past = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/store/v1/ledger/trim"))
        .header("Authorization", "Bearer admin-token").header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"before\":" + (purgedAt + 1) + "}")).build();
    HttpResponse<String> answer = http.send(past, HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).isEqualTo(400);
    assertThat(answer.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).contains("json"));
    assertThat(answer.body()).contains("after the last collect's cutoff " + purgedAt);
    assertThatThrownBy(() -> grpc.get(Caller.ADMIN).ledger().trimPurged(purgedAt + 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must outlive the tombstones");
    assertThat(store.ledger().purged(KeyPrefix.all())).hasSize(entries);
    // at the cutoff itself the trim runs (the entry, purged at the cutoff, is kept)
    assertThat(grpc.get(Caller.ADMIN).ledger().trimPurged(purgedAt)).isGreaterThanOrEqualTo(0);
    assertThat(store.ledger().purged(KeyPrefix.all())).extracting(e -> e.key()).contains(key);
  }

  @Test
  void randomLedgerWritesOverGrpcReadBackAsTheServedLedger() {
    long seed = Long.getLong("lethe.test.seed", 0x142L);
    Random random = new Random(seed);
    Ledger remote = grpc.get(Caller.ADMIN).ledger();
    Ledger served = store.ledger();
    assertThat(remote.storeId()).isEqualTo(served.storeId());
    List<String> ids = List.of(PEER, "1b6c5c1e-3a9f-4d2b-8c7e-1f2a3b4c5d6e", "2b6c5c1e-3a9f-4d2b-8c7e-1f2a3b4c5d6e");
    for (int op = 0; op < 120; op++) {
      String at = "seed " + seed + ", op " + op;
      String id = ids.get(random.nextInt(ids.size()));
      switch (random.nextInt(5)) {
        case 0 -> remote.recordPeer(new Peer(id, "grpc://h" + random.nextInt(9) + ":1", random.nextInt(1000),
            random.nextBoolean() ? null : (long) random.nextInt(1000), random.nextInt(200) - 100));
        case 1 -> {
          boolean known = served.peers().stream().anyMatch(p -> p.id().equals(id));
          assertThat(remote.forgetPeer(id)).as(at).isEqualTo(known);
        }
        case 2 -> remote.recordCollect(random.nextBoolean() ? random.nextInt(10_000) : served.now() - random.nextInt(100));
        case 3 -> {
          RecordKey key = new RecordKey("team", random.nextBoolean() ? "c" : "d", "k" + op);
          Record r = ((Committed) store.put(Record.draft(key, Kind.DOCUMENT, Body.Inline.text("v"), Meta.byAuthor("a")),
              Optional.empty())).record();
          Record t = ((Deleted) store.delete(r.key(), Optional.of(r.revision()))).tombstone().orElseThrow();
          store.purge(key, Optional.of(t.revision()));
        }
        default -> {
          long before = served.purged(KeyPrefix.all()).stream().mapToLong(e -> e.purgedAt()).max().orElse(0L)
              - random.nextInt(50);
          List<?> kept = served.purged(KeyPrefix.all()).stream().filter(e -> e.purgedAt() >= Math.max(0L, before)).toList();
          int all = served.purged(KeyPrefix.all()).size();
          Optional<Long> cutoff = served.collectCutoff();
          if (cutoff.isEmpty() || Math.max(0L, before) > cutoff.get()) { // docs/design/0151-purge-log.md "Trimming"
            assertThatThrownBy(() -> remote.trimPurged(Math.max(0L, before))).as(at)
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must outlive the tombstones");
            assertThat(served.purged(KeyPrefix.all())).as(at).hasSize(all);
          } else {
            assertThat(remote.trimPurged(Math.max(0L, before))).as(at).isEqualTo(all - kept.size());
          }
        }
      }
      assertThat(remote.peers()).as(at).isEqualTo(served.peers());
      assertThat(remote.collectCutoff()).as(at).isEqualTo(served.collectCutoff());
      assertThat(remote.purged(KeyPrefix.all())).as(at).isEqualTo(served.purged(KeyPrefix.all()));
      assertThat(remote.purged(new KeyPrefix("team", "c"))).as(at).isEqualTo(served.purged(new KeyPrefix("team", "c")));
    }
  }
}
