package dev.lethe.store.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.grpc.proto.KeyRequest;
import dev.lethe.store.grpc.proto.LetheStoreGrpc;
import dev.lethe.store.grpc.proto.ListReply;
import dev.lethe.store.grpc.proto.ListRequest;
import dev.lethe.store.grpc.proto.RecordReply;
import dev.lethe.store.remote.ServerTooOldException;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A real gRPC server that has the consumer calls but none of the replication calls (a server
 * older than them): every raw call of {@link GrpcStore} fails with {@link ServerTooOldException}
 * and never falls back to the consumer call beside it.
 */
class GrpcStoreServerTooOldTest {

  private final AtomicInteger consumerCalls = new AtomicInteger();
  private Server server;
  private GrpcStore store;

  @BeforeEach
  void start() throws Exception {
    LetheStoreGrpc.LetheStoreImplBase consumerOnly = new LetheStoreGrpc.LetheStoreImplBase() {
      @Override
      public void get(KeyRequest request, StreamObserver<RecordReply> out) {
        consumerCalls.incrementAndGet();
        out.onNext(RecordReply.getDefaultInstance());
        out.onCompleted();
      }

      @Override
      public void list(ListRequest request, StreamObserver<ListReply> out) {
        consumerCalls.incrementAndGet();
        out.onNext(ListReply.getDefaultInstance());
        out.onCompleted();
      }
    };
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(consumerOnly).build().start();
    store = GrpcStore.open("grpc://127.0.0.1:" + server.getPort(), Optional.empty());
  }

  @AfterEach
  void stop() {
    store.close();
    server.shutdownNow();
  }

  @Test
  void everyRawCallIsServerTooOldAndNoneFallsBackToAConsumerCall() {
    RecordKey k = RecordKey.parse("ns/c/id");
    assertThat(store.get(k)).isEmpty();
    assertThat(store.list(KeyPrefix.all())).isEmpty();
    int before = consumerCalls.get();
    assertThatThrownBy(() -> store.getRaw(k)).isInstanceOf(ServerTooOldException.class)
        .hasStackTraceContaining("too old for replication").hasStackTraceContaining("UNIMPLEMENTED on GetRaw");
    assertThatThrownBy(() -> store.listRaw(KeyPrefix.all())).isInstanceOf(ServerTooOldException.class);
    assertThatThrownBy(() -> store.listRawPage(KeyPrefix.all(), Optional.empty(), 10))
        .isInstanceOf(ServerTooOldException.class);
    assertThatThrownBy(() -> store.purge(k, Optional.empty())).isInstanceOf(ServerTooOldException.class);
    assertThat(consumerCalls.get()).as("consumer calls made by the raw calls").isEqualTo(before);
  }

  @Test
  void aConsumerCallTheServerLacksIsAnIoErrorNotServerTooOld() {
    assertThatThrownBy(() -> store.delete(RecordKey.parse("ns/c/id"), Optional.empty()))
        .isInstanceOf(java.io.UncheckedIOException.class).isNotInstanceOf(ServerTooOldException.class)
        .hasStackTraceContaining("UNIMPLEMENTED");
  }

  @Test
  void everyLedgerCallOfAServerWithoutThemIsServerTooOld() {
    dev.lethe.store.core.ledger.Ledger l = store.ledger();
    String peer = "0b6c5c1e-3a9f-4d2b-8c7e-1f2a3b4c5d6e";
    List<org.assertj.core.api.ThrowableAssert.ThrowingCallable> calls = List.of(
        l::storeId, l::now, l::peers, l::collectCutoff, () -> l.forgetPeer(peer),
        () -> l.recordPeer(new dev.lethe.store.core.ledger.Peer(peer, "grpc://x:1", 1L, null, 0L)),
        () -> l.recordCollect(5L), () -> l.purged(KeyPrefix.all()), () -> l.trimPurged(5L));
    for (var call : calls) {
      assertThatThrownBy(call).isInstanceOf(ServerTooOldException.class)
          .hasStackTraceContaining("too old for replication").hasStackTraceContaining("the gRPC ledger calls");
    }
    assertThat(consumerCalls.get()).as("consumer calls made by the ledger calls").isZero();
  }
}
