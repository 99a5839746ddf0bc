package dev.lethe.store.soak;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.store.core.Store;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link StoreOpener#PROVIDERS} opens a replica's URI of every transport the soak knows, and the
 * client-side {@code file:} stores; {@link StoreOpener#BUILT_IN} cannot open {@code grpc://}, which
 * is why the soak tests use the providers.
 */
class StoreOpenerTest {

  @TempDir Path dir;

  @Test
  void theProvidersOpenEveryTransportAndFileStores() throws Exception {
    for (Transport t : Transport.KNOWN.values()) {
      // opening connects lazily: no server is needed to open
      Store s = StoreOpener.PROVIDERS.open(t.uri(1));
      assertThat(s.getClass().getSimpleName()).as(t.name()).isEqualTo(t == Transport.GRPC ? "GrpcStore" : "RemoteStore");
      if (s instanceof AutoCloseable c) {
        c.close();
      }
    }
    assertThat(StoreOpener.PROVIDERS.open("file:" + dir).getClass().getSimpleName()).isEqualTo("FsStore");
  }

  @Test
  void theBuiltInOpenerKnowsNoGrpc() {
    assertThatThrownBy(() -> StoreOpener.BUILT_IN.open(Transport.GRPC.uri(1))).isInstanceOf(RuntimeException.class);
  }
}
