package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.Conflict;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.Deleted;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.NotFound;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.format.RecordJson;
import dev.lethe.store.core.memory.MemoryStore;
import dev.lethe.store.grpc.GrpcStore;
import dev.lethe.store.grpc.GrpcWire;
import dev.lethe.store.grpc.proto.KeyRequest;
import dev.lethe.store.grpc.proto.LetheStoreGrpc;
import dev.lethe.store.grpc.proto.PutRequest;
import dev.lethe.store.remote.RemoteStore;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The gRPC port of a real {@code lethe server} process with auth on maps outcomes and failures as
 * the HTTP routes do (docs/design/0141-grpc-transport.md): status codes on the wire (through the
 * generated stub) and the results the {@code grpc://} client makes of them.
 */
class GrpcStoreOutcomesTest {

  private static LetheProcess server;
  private static int grpcPort;

  @BeforeAll
  static void start() throws Exception {
    Path work = Files.createDirectories(
        Path.of(System.getProperty("lethe.it.work-dir", "target/it"), "grpc-outcomes-" + System.nanoTime()));
    Path auth = Files.writeString(work.resolve("auth.yaml"), "principals:\n"
        + "  - name: admin\n    token-sha256: " + ContentHash.ofUtf8("admin-token") + "\n    read: [\"*\"]\n    write: [\"*\"]\n"
        + "  - name: writer\n    token-sha256: " + ContentHash.ofUtf8("writer-token")
        + "\n    store:\n      read: [main]\n      write: [main]\n"
        + "  - name: reader\n    token-sha256: " + ContentHash.ofUtf8("reader-token")
        + "\n    store:\n      read: [main]\n      write: []\n");
    grpcPort = StoreServerPool.freePort();
    server = LetheProcess.start(StoreServerPool.freePort(), work.resolve("data"), work.resolve("server.log"), List.of(),
        Map.of("LETHE_ICEBERG_REST_ASYNC_PURGE_WORKER_THREADS", "0", "LETHE_AUTH_FILE", auth.toString(),
            "LETHE_STORE_GRPC_PORT", Integer.toString(grpcPort)));
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  private static GrpcStore store(String token) {
    return GrpcStore.open("grpc://127.0.0.1:" + grpcPort, Optional.ofNullable(token));
  }

  /** The generated stub on its own channel, sending {@code token} (null: none). */
  private static <T> T withStub(String token, java.util.function.Function<LetheStoreGrpc.LetheStoreBlockingStub, T> call) {
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", grpcPort).usePlaintext().build();
    try {
      LetheStoreGrpc.LetheStoreBlockingStub stub = LetheStoreGrpc.newBlockingStub(channel);
      if (token != null) {
        Metadata headers = new Metadata();
        headers.put(GrpcWire.AUTHORIZATION, "Bearer " + token);
        stub = stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
      }
      return call.apply(stub);
    } finally {
      channel.shutdownNow();
    }
  }

  private static Status.Code code(String token, java.util.function.Function<LetheStoreGrpc.LetheStoreBlockingStub, ?> call) {
    try {
      withStub(token, call);
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }

  private static Record draft(RecordKey k, String text, String author) {
    return Record.draft(k, Kind.DOCUMENT, Body.Inline.text(text), Meta.byAuthor(author));
  }

  private static KeyRequest key(String k) {
    return KeyRequest.newBuilder().setKey(k).build();
  }

  @Test
  void noTokenOrAWrongTokenIsUnauthenticatedAndAReaderWritingIsPermissionDenied() {
    assertThat(code(null, s -> s.getRaw(key("main/c/a")))).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(code("wrong-token", s -> s.getRaw(key("main/c/a")))).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(code("reader-token", s -> s.getRaw(key("main/c/a")))).isEqualTo(Status.Code.OK);
    assertThat(code("reader-token", s -> s.getRaw(key("other/c/a")))).isEqualTo(Status.Code.PERMISSION_DENIED);
    try (GrpcStore reader = store("reader-token"); GrpcStore wrong = store("wrong-token")) {
      RecordKey k = RecordKey.parse("main/c/denied");
      assertThatThrownBy(() -> reader.put(draft(k, "x", "reader"), Optional.empty()))
          .isInstanceOf(UncheckedIOException.class).hasStackTraceContaining("PERMISSION_DENIED");
      assertThatThrownBy(() -> wrong.getRaw(k))
          .isInstanceOf(UncheckedIOException.class).hasStackTraceContaining("UNAUTHENTICATED")
          .satisfies(e -> assertThat(e.toString() + e.getCause()).doesNotContain("wrong-token"));
      // nothing was written by the refused put
      try (GrpcStore admin = store("admin-token")) {
        assertThat(admin.getRaw(k)).isEmpty();
      }
    }
  }

  @Test
  void aBadKeyOrRevisionIsInvalidArgumentAndWritesNothing() {
    assertThat(code("admin-token", s -> s.getRaw(key("no-slashes")))).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(code("admin-token", s -> s.getRaw(key("main/../x")))).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(code("admin-token", s -> s.putRaw(PutRequest.newBuilder().setKey("main/c/bad")
        .setRecordJson(ByteString.copyFromUtf8("{not json")).build()))).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(code("admin-token", s -> s.put(PutRequest.newBuilder().setKey("main/c/bad")
        .setRecordJson(ByteString.copyFromUtf8("{\"kind\":\"document\",\"body\":{\"text\":\"x\"}}"))
        .setExpected(dev.lethe.store.grpc.proto.Expected.newBuilder().setRevision("seven")).build())))
        .isEqualTo(Status.Code.INVALID_ARGUMENT);
    try (GrpcStore admin = store("admin-token")) {
      assertThat(admin.getRaw(RecordKey.parse("main/c/bad"))).isEmpty();
    }
  }

  @Test
  void aConflictIsAbortedCarryingTheStoredRecordAndAConditionalWriteOnAnAbsentKeyIsFailedPrecondition() {
    try (GrpcStore admin = store("admin-token")) {
      RecordKey k = RecordKey.parse("main/c/conflict");
      Record first = ((Committed) admin.put(draft(k, "v1", "admin"), Optional.empty())).record();
      // on the wire: ABORTED with the stored record in the trailer
      StatusRuntimeException aborted = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
          () -> withStub("admin-token", s -> s.putRaw(PutRequest.newBuilder().setKey(k.toString())
              .setRecordJson(ByteString.copyFrom(new RecordJson().encode(first))).build())));
      assertThat(aborted.getStatus().getCode()).isEqualTo(Status.Code.ABORTED);
      assertThat(new RecordJson().decode(aborted.getTrailers().get(GrpcWire.CONFLICT_RECORD))).isEqualTo(first);
      // through the client: a Conflict carrying it, for a put, a raw put and a delete
      assertThat(admin.put(draft(k, "v2", "admin"), Optional.empty())).isEqualTo(new Conflict(first));
      assertThat(admin.putRaw(first, Optional.empty())).isEqualTo(new Conflict(first));
      Revision stale = new Revision(first.revision().counter() + 5, first.revision().hash());
      assertThat(admin.delete(k, Optional.of(stale))).isEqualTo(new Conflict(first));
      // a conditional write on a key never written: FAILED_PRECONDITION, NotFound to the client
      RecordKey absent = RecordKey.parse("main/c/absent");
      assertThat(code("admin-token", s -> s.put(PutRequest.newBuilder().setKey(absent.toString())
          .setRecordJson(ByteString.copyFromUtf8("{\"kind\":\"document\",\"body\":{\"text\":\"x\"}}"))
          .setExpected(dev.lethe.store.grpc.proto.Expected.newBuilder()
              .setRevision(dev.lethe.store.core.format.RevisionJson.format(first.revision()))).build())))
          .isEqualTo(Status.Code.FAILED_PRECONDITION);
      assertThat(admin.put(draft(absent, "x", "admin"), Optional.of(first.revision()))).isEqualTo(new NotFound());
      Record elsewhere = ((Committed) new MemoryStore(32, Clock.systemUTC()).put(draft(absent, "x", "admin"),
          Optional.empty())).record();
      assertThat(admin.putRaw(elsewhere, Optional.of(first.revision()))).isEqualTo(new NotFound());
      assertThat(admin.getRaw(absent)).isEmpty();
    }
  }

  @Test
  void aNonAdminIsStampedAsItselfAndAnAdminKeepsTheClaimedDeleter() {
    try (GrpcStore writer = store("writer-token"); GrpcStore admin = store("admin-token")) {
      RecordKey k = RecordKey.parse("main/c/authored");
      Record put = ((Committed) writer.put(draft(k, "v1", "mallory"), Optional.empty())).record();
      assertThat(put.meta().author()).isEqualTo("writer");
      Deleted d = (Deleted) writer.deleteAs(k, Optional.of(put.revision()), Optional.of("mallory"));
      assertThat(d.tombstone().orElseThrow().meta().author()).isEqualTo("writer");
      RecordKey k2 = RecordKey.parse("main/c/authored2");
      Record put2 = ((Committed) admin.put(draft(k2, "v1", "alice"), Optional.empty())).record();
      Deleted d2 = (Deleted) admin.deleteAs(k2, Optional.of(put2.revision()), Optional.of("bob"));
      assertThat(d2.tombstone().orElseThrow().meta().author()).isEqualTo("bob");
    }
  }

  /**
   * A seeded random mix of puts, raw puts, deletes and purges with fresh or stale expected
   * revisions, each applied to the server over gRPC and to an in-process {@link MemoryStore}
   * (the oracle): every outcome has the oracle's kind, and in the end both hold the same keys.
   */
  @Test
  void aSeededRandomMixHasTheOutcomesOfAnInProcessStore() {
    long seed = Long.getLong("lethe.test.seed", System.nanoTime());
    Random random = new Random(seed);
    MemoryStore oracle = new MemoryStore(32, Clock.systemUTC());
    try (GrpcStore admin = store("admin-token")) {
      List<RecordKey> keys = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        keys.add(RecordKey.parse("main/mix" + seed % 1000 + "/k" + i));
      }
      for (int step = 0; step < 120; step++) {
        RecordKey k = keys.get(random.nextInt(keys.size()));
        Optional<Record> known = oracle.getRaw(k);
        Optional<Revision> expected = switch (random.nextInt(3)) {
          case 0 -> Optional.empty();
          case 1 -> known.map(Record::revision);
          default -> Optional.of(new Revision(1 + random.nextInt(4), ContentHash.ofUtf8("stale")));
        };
        String what = "seed " + seed + " step " + step + " on " + k + " expecting " + expected;
        switch (random.nextInt(3)) {
          case 0 -> {
            Record d = draft(k, "v" + step, "admin");
            assertThat(kind(admin.put(d, expected))).as(what).isEqualTo(kind(oracle.put(d, expected)));
          }
          case 1 -> {
            DeleteResult remote = admin.delete(k, expected);
            assertThat(kind(remote)).as(what).isEqualTo(kind(oracle.delete(k, expected)));
          }
          default -> {
            DeleteResult remote = admin.purge(k, expected);
            assertThat(kind(remote)).as(what).isEqualTo(kind(oracle.purge(k, expected)));
          }
        }
        // keep the two sides on the same records, so the next expected revision means the same
        Optional<Record> stored = admin.getRaw(k);
        Optional<Record> mine = oracle.getRaw(k);
        assertThat(stored.isPresent()).as(what).isEqualTo(mine.isPresent());
        if (stored.isPresent() && !stored.get().equals(mine.get())) {
          oracle.purge(k, Optional.of(mine.get().revision()));
          assertThat(oracle.putRaw(stored.get(), Optional.empty())).as(what).isInstanceOf(Committed.class);
        }
      }
    }
  }

  private static String kind(PutResult r) {
    return r.getClass().getSimpleName();
  }

  private static String kind(DeleteResult r) {
    return r instanceof Deleted d ? "Deleted" + d.tombstone().isPresent() : r.getClass().getSimpleName();
  }

  /** The HTTP routes of the same server agree with the gRPC port on what is stored. */
  @Test
  void httpAndGrpcServeOneStore() {
    try (GrpcStore admin = store("admin-token")) {
      RecordKey k = RecordKey.parse("main/c/both");
      Record put = ((Committed) admin.put(draft(k, "v1", "admin"), Optional.empty())).record();
      Store http = RemoteStore.open("http://127.0.0.1:" + server.port(), Optional.of("admin-token"));
      assertThat(http.getRaw(k)).contains(put);
    }
  }
}
