package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.soak.Backend;
import dev.lethe.store.soak.Row;
import dev.lethe.store.soak.Soak;
import dev.lethe.store.soak.SoakOptions;
import dev.lethe.store.soak.StoreOpener;
import dev.lethe.store.soak.Transport;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The HA soak for 60 s against three real {@code lethe server} replicas under kill -9 chaos, on a
 * shared {@code file:} store and on a shared PostgreSQL store (docs/design/0145-ha-soak.md), with
 * writers over HTTP and gRPC: every violation row is 0 and the progress checks pass (NoProgress
 * counts a writer of either transport with no acknowledged write, and a run that killed fewer than
 * two replicas while they served), and at least one kill hit a serving replica.
 */
class StoreSoakTest {

  static final Duration CI_DURATION = Duration.ofSeconds(60);

  /** Writers alternate: even ones over HTTP, odd ones over gRPC (each replica opens both ports). */
  static final List<Transport> BOTH = List.of(Transport.HTTP, Transport.GRPC);

  /** {@code java -jar lethe.jar}, the server command of every soak started from a test. */
  static List<String> serverCommand() {
    return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx384m", "-jar",
        System.getProperty("lethe.it.jar"));
  }

  static Path work(String name) {
    return Path.of(System.getProperty("lethe.it.work-dir", "target/it"), name + "-" + System.nanoTime());
  }

  static Soak.Result run(SoakOptions options) throws Exception {
    Soak.Result result = Soak.run(options);
    Soak.print(result, options, new PrintWriter(System.out, true));
    return result;
  }

  @Test
  void aMinuteOfChaosOnASharedFileStoreLosesNothing() throws Exception {
    SoakOptions options = new SoakOptions(20261202L, CI_DURATION, 3, 8, Backend.FILE, null, null, Duration.ofSeconds(3),
        null, BOTH, work("soak-file"), serverCommand(), StoreOpener.PROVIDERS, null);
    Soak.Result result = run(options);
    assertThat(result.verdict().counts()).allSatisfy((row, count) -> assertThat(count).as(row.name()).isZero());
    assertThat(result.facts().servingKills()).as("replicas killed while serving").isPositive();
  }

  @Test
  void aMinuteOfChaosOnASharedPostgresStoreLosesNothing() throws Exception {
    Backends.Fresh db = Backends.createOrSkip("postgresql");
    try {
      SoakOptions options = new SoakOptions(20261203L, CI_DURATION, 3, 8, Backend.POSTGRESQL, db.jdbcUrl(), null,
          Duration.ofSeconds(3), null, BOTH, work("soak-postgresql"), serverCommand(), StoreOpener.PROVIDERS, null);
      Soak.Result result = run(options);
      assertThat(result.verdict().counts()).allSatisfy((row, count) -> assertThat(count).as(row.name()).isZero());
      assertThat(result.verdict().counts()).containsEntry(Row.NoProgress, 0L);
      assertThat(result.facts().servingKills()).as("replicas killed while serving").isPositive();
    } finally {
      db.drop();
    }
  }
}
