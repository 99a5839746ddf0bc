package dev.lethe.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.grpc.GrpcStore;
import dev.lethe.store.grpc.proto.KeyRequest;
import dev.lethe.store.grpc.proto.LetheStoreGrpc;
import dev.lethe.store.grpc.proto.PutRequest;
import dev.lethe.store.grpc.proto.RecordReply;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP port's bounds on one client hold on the gRPC port too (docs/design/0143-grpc-limits.md),
 * against a real server over real HTTP/2: a message over {@code lethe.http.max-request-bytes} is
 * refused and writes nothing; at most {@code lethe.http.max-requests-per-client} calls of one
 * address are in flight, the next is refused {@code RESOURCE_EXHAUSTED} and writes nothing; a
 * connection that never says a word, or holds no call, is closed after {@code
 * lethe.http.idle-timeout-ms}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GrpcLimitsTest {

  private static final long MAX_REQUEST_BYTES = 64 * 1024;
  private static final int PER_CLIENT = 2;
  private static final long IDLE_MS = 1_000;

  @TempDir static Path dir;
  final List<Status> heldEnded = new java.util.concurrent.CopyOnWriteArrayList<>();
  LetheServer server;
  ManagedChannel channel;

  @BeforeAll
  void start() {
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 4, null,
        MAX_REQUEST_BYTES, null, Map.of(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0",
            ConfigKeys.MAX_REQUESTS_PER_CLIENT, String.valueOf(PER_CLIENT),
            ConfigKeys.IDLE_TIMEOUT_MS, String.valueOf(IDLE_MS))));
    channel = channel();
  }

  @AfterAll
  void stop() {
    channel.shutdownNow();
    server.close();
  }

  private ManagedChannel channel() {
    return NettyChannelBuilder.forAddress("127.0.0.1", grpcPort()).usePlaintext().maxInboundMessageSize(1 << 24).build();
  }

  private int grpcPort() {
    return java.net.URI.create(server.grpcStoreUri().replace("grpc://", "http://")).getPort();
  }

  private static Record draft(RecordKey key, int bytes) {
    return Record.draft(key, Kind.DOCUMENT, Body.Inline.text("x".repeat(bytes)), Meta.byAuthor("a"));
  }

  @Test
  void aMessageOverTheRequestLimitIsRefusedAndWritesNothing() {
    RecordKey big = new RecordKey("limits", "c", "big");
    try (GrpcStore grpc = GrpcStore.open(server.grpcStoreUri(), Optional.empty())) {
      assertThatThrownBy(() -> grpc.put(draft(big, (int) MAX_REQUEST_BYTES * 2), Optional.empty()))
          .isInstanceOf(UncheckedIOException.class).cause().hasMessageContaining("RESOURCE_EXHAUSTED")
          .hasMessageContaining("exceeds maximum size " + MAX_REQUEST_BYTES);
      assertThat(server.store().getRaw(big)).isEmpty();
      // the same call under the limit is served: the size, not the call, was refused
      assertThat(grpc.put(draft(big, (int) MAX_REQUEST_BYTES / 2), Optional.empty())).isInstanceOf(Committed.class);
    }
  }

  /**
   * A GetRaw whose request never ends: the server holds it in flight until it is cancelled. Sent
   * as a streaming call (same method name), because grpc-java flushes a unary call's headers only
   * with its end.
   */
  private ClientCall<KeyRequest, RecordReply> held() {
    ClientCall<KeyRequest, RecordReply> call = channel.newCall(
        LetheStoreGrpc.getGetRawMethod().toBuilder().setType(MethodDescriptor.MethodType.BIDI_STREAMING).build(),
        CallOptions.DEFAULT);
    call.start(new ClientCall.Listener<>() {
      @Override
      public void onClose(Status status, Metadata trailers) {
        heldEnded.add(status);
      }
    }, new Metadata());
    call.request(1);
    call.sendMessage(KeyRequest.newBuilder().setKey("limits/c/held").build());
    return call;
  }

  private static Status.Code code(Runnable call) {
    try {
      call.run();
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }

  @Test
  void callsOfOneAddressOverTheCapAreRefusedResourceExhaustedAndWriteNothing() {
    LetheStoreGrpc.LetheStoreBlockingStub stub = LetheStoreGrpc.newBlockingStub(channel);
    List<ClientCall<KeyRequest, RecordReply>> holding = new ArrayList<>();
    for (int i = 0; i < PER_CLIENT; i++) {
      holding.add(held());
    }
    try {
      KeyRequest probe = KeyRequest.newBuilder().setKey("limits/c/probe").build();
      // the held calls reach the server in their own time; then every further call is refused
      await("a call over the cap refused").atMost(Duration.ofSeconds(20))
          .until(() -> code(() -> stub.getRaw(probe)) == Status.Code.RESOURCE_EXHAUSTED);
      RecordKey refused = new RecordKey("limits", "c", "refused");
      Status.Code put = code(() -> stub.put(PutRequest.newBuilder().setKey(refused.toString())
          .setRecordJson(ByteString.copyFromUtf8("{\"kind\":\"document\",\"body\":{\"text\":\"v\"}}")).build()));
      assertThat(put).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(server.store().getRaw(refused)).isEmpty();
      // a call that ends frees its place
      holding.remove(0).cancel("done", null);
      await("a call served once one ended").atMost(Duration.ofSeconds(20))
          .until(() -> code(() -> stub.getRaw(probe)) == Status.Code.OK);
    } finally {
      holding.forEach(c -> c.cancel("done", null));
      await("every held call ended").atMost(Duration.ofSeconds(20))
          .until(() -> code(() -> stub.getRaw(KeyRequest.newBuilder().setKey("limits/c/probe").build())) == Status.Code.OK);
    }
  }

  @Test
  void concurrentWritesOfOneAddressBeyondTheCapAreEachCommittedOrRefusedWithNothingWritten() throws Exception {
    LetheStoreGrpc.LetheStoreBlockingStub stub = LetheStoreGrpc.newBlockingStub(channel);
    KeyRequest probe = KeyRequest.newBuilder().setKey("limits/c/probe").build();
    int writers = 16;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    CountDownLatch go = new CountDownLatch(1);
    List<ClientCall<KeyRequest, RecordReply>> holding = new ArrayList<>();
    try (GrpcStore grpc = GrpcStore.open(server.grpcStoreUri(), Optional.empty())) {
      // the server's settings read first, so no call of the store's own is in flight from here on
      grpc.ancestorCap();
      // one place of the cap left: fill it, see it full, free one place, see it served
      for (int i = 0; i < PER_CLIENT; i++) {
        holding.add(held());
      }
      await("the cap full").atMost(Duration.ofSeconds(20))
          .until(() -> code(() -> stub.getRaw(probe)) == Status.Code.RESOURCE_EXHAUSTED);
      holding.remove(0).cancel("done", null);
      await("one place free").atMost(Duration.ofSeconds(20)).until(() -> code(() -> stub.getRaw(probe)) == Status.Code.OK);
      assertThat(heldEnded).as("held calls refused").noneMatch(st -> st.getCode() == Status.Code.RESOURCE_EXHAUSTED);
      List<Future<Boolean>> outcomes = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        RecordKey key = new RecordKey("limits", "many", "k" + w);
        outcomes.add(pool.submit(() -> {
          go.await();
          try {
            return grpc.put(draft(key, 1024), Optional.empty()) instanceof Committed;
          } catch (UncheckedIOException e) {
            assertThat(e.getCause()).hasMessageContaining("RESOURCE_EXHAUSTED").hasMessageContaining(ConfigKeys.MAX_REQUESTS_PER_CLIENT);
            return false;
          }
        }));
      }
      go.countDown();
      int committed = 0;
      for (int w = 0; w < writers; w++) {
        boolean c = outcomes.get(w).get();
        committed += c ? 1 : 0;
        // the oracle: a committed write is stored, a refused one left nothing
        assertThat(server.store().getRaw(new RecordKey("limits", "many", "k" + w)).isPresent()).as("k" + w).isEqualTo(c);
      }
      System.out.println("GrpcLimitsTest: " + writers + " concurrent puts through one free place: " + committed + " committed");
      assertThat(committed).as("committed of %d racing for one place", writers).isPositive().isLessThan(writers);
    } finally {
      pool.shutdownNow();
      holding.forEach(c -> c.cancel("done", null));
    }
  }

  @Test
  void aConnectionThatSendsNothingIsClosedAfterTheIdleTimeout() throws Exception {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", grpcPort()));
      s.setSoTimeout(15_000);
      long started = System.nanoTime();
      InputStream in = s.getInputStream();
      // the server's own preface may come first; then the end of the stream
      byte[] buffer = new byte[4096];
      while (in.read(buffer) >= 0) {
        // discard
      }
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(12));
    }
  }

  @Test
  void aConnectionThatHoldsNoCallIsClosedAfterTheIdleTimeout() {
    ManagedChannel idle = channel();
    try {
      LetheStoreGrpc.newBlockingStub(idle).getRaw(KeyRequest.newBuilder().setKey("limits/c/idle").build());
      assertThat(idle.getState(false)).isEqualTo(ConnectivityState.READY);
      // the server's GOAWAY after the idle timeout sends the channel back to IDLE
      await("the idle connection closed by the server").atMost(Duration.ofSeconds(12))
          .until(() -> idle.getState(false) != ConnectivityState.READY);
    } finally {
      idle.shutdownNow();
    }
  }
}
