package dev.lethe.catalog.entity;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Servers starting at once on one catalog database agree on one page token key
 * (docs/design/0423-signed-page-tokens.md): 8 pools on one database, each creating the key from
 * its own random bytes at the same moment, all return the one stored row.
 */
class ServerSecretsTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void serversCreatingTheKeyAtOnceAllGetTheStoredOne(String backend) throws Exception {
    DatabaseSettings settings = JdbcBackends.fresh(backend, dir);
    int racers = 8;
    List<CatalogDatabase> pools = new ArrayList<>();
    ExecutorService threads = Executors.newFixedThreadPool(racers);
    try {
      CatalogDatabase.open(settings).close(); // migrated once, so the race is the insert's alone
      for (int i = 0; i < racers; i++) {
        pools.add(CatalogDatabase.open(settings));
      }
      CountDownLatch go = new CountDownLatch(1);
      List<Future<byte[]>> keys = new ArrayList<>();
      for (CatalogDatabase pool : pools) {
        keys.add(threads.submit(() -> {
          go.await();
          return new ServerSecrets(pool, new SecureRandom(), Clock.systemUTC()).loadOrCreate(ServerSecrets.PAGE_TOKEN_KEY);
        }));
      }
      go.countDown();
      byte[] first = keys.get(0).get();
      assertThat(first).hasSize(ServerSecrets.BYTES);
      for (Future<byte[]> key : keys) {
        assertThat(Arrays.equals(key.get(), first)).as("every server holds the same key").isTrue();
      }
      // and a later start reads it back
      assertThat(new ServerSecrets(pools.get(0), new SecureRandom(), Clock.systemUTC())
          .loadOrCreate(ServerSecrets.PAGE_TOKEN_KEY)).isEqualTo(first);
    } finally {
      threads.shutdownNow();
      pools.forEach(CatalogDatabase::close);
      JdbcBackends.drop(backend, settings);
    }
  }
}
