package dev.lethe.store.soak;

import dev.lethe.store.core.Store;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * One soak run's settings.
 *
 * @param seed the seed of every writer's choices and of the chaos loop
 * @param duration how long writers write, at least 1 s
 * @param replicas how many {@code lethe server} replicas, 1 to 9
 * @param writers how many writer threads, 1 to 64
 * @param backend the shared store
 * @param jdbcUrl the PostgreSQL store URL ({@code jdbc:postgresql://127.0.0.1…}) for {@link
 *     Backend#POSTGRESQL}; null otherwise
 * @param s3 the S3 server and bucket of {@link Backend#S3}; null otherwise
 * @param killEvery the pause between two replica kills, counted from when a victim is available;
 *     {@link Duration#ZERO} turns chaos off
 * @param keepServing how many replicas the chaos loop keeps serving, 0 to {@code replicas - 1};
 *     null for the default, 1 (0 with one replica)
 * @param transports how clients reach replicas, at least one; writer w uses transport w mod size
 * @param workDir a directory for the replicas' data, logs and the client-side stores
 * @param serverCommand the command that runs {@code lethe} (e.g. {@code java -jar lethe.jar}); the
 *     soak appends {@code server --port … --data-dir … --store-uri …}
 * @param opener opens a client store from a store URI ({@code http://127.0.0.1:port}, {@code file:DIR})
 * @param clientStore wraps every client's store of a replica; identity in real runs, a faulty store
 *     in the tests proving the oracle can fail
 */
public record SoakOptions(long seed, Duration duration, int replicas, int writers, Backend backend, String jdbcUrl,
    S3Target s3, Duration killEvery, Integer keepServing, List<Transport> transports, Path workDir,
    List<String> serverCommand, StoreOpener opener, UnaryOperator<Store> clientStore) {

  /** @throws IllegalArgumentException naming the first bad setting */
  public SoakOptions {
    Objects.requireNonNull(backend, "backend");
    Objects.requireNonNull(workDir, "workDir");
    Objects.requireNonNull(opener, "opener");
    transports = List.copyOf(transports);
    serverCommand = List.copyOf(serverCommand);
    clientStore = clientStore == null ? UnaryOperator.identity() : clientStore;
    if (duration == null || duration.toMillis() < 1000) {
      throw new IllegalArgumentException("Invalid --duration " + duration + ": at least 1s");
    }
    if (replicas < 1 || replicas > 9) {
      throw new IllegalArgumentException("Invalid --replicas " + replicas + ": 1 to 9");
    }
    if (writers < 1 || writers > 64) {
      throw new IllegalArgumentException("Invalid --writers " + writers + ": 1 to 64");
    }
    if (killEvery == null || killEvery.isNegative()) {
      throw new IllegalArgumentException("Invalid --kill-every " + killEvery + ": 0 (no chaos) or more");
    }
    keepServing = keepServing == null ? Math.min(1, replicas - 1) : keepServing;
    if (keepServing < 0 || keepServing >= replicas) {
      throw new IllegalArgumentException("Invalid --keep-serving " + keepServing + ": 0 to " + (replicas - 1)
          + " (fewer than --replicas)");
    }
    if (transports.isEmpty()) {
      throw new IllegalArgumentException("Invalid --transports: at least one");
    }
    if (serverCommand.isEmpty()) {
      throw new IllegalArgumentException("Invalid server command: empty");
    }
    if (backend == Backend.POSTGRESQL) {
      if (jdbcUrl == null || !jdbcUrl.startsWith("jdbc:postgresql://127.0.0.1") && !jdbcUrl.startsWith("jdbc:postgresql://localhost")) {
        throw new IllegalArgumentException("Invalid --jdbc-url '" + jdbcUrl
            + "': --backend postgresql needs a jdbc:postgresql://127.0.0.1… URL (the soak talks only to this machine)");
      }
    } else if (jdbcUrl != null) {
      throw new IllegalArgumentException("Invalid --jdbc-url: only --backend postgresql takes one");
    }
    if (backend == Backend.S3 && s3 == null) {
      throw new IllegalArgumentException("Invalid --s3-endpoint: --backend s3 needs http://127.0.0.1:PORT");
    } else if (backend != Backend.S3 && s3 != null) {
      throw new IllegalArgumentException("Invalid --s3-endpoint: only --backend s3 takes one");
    }
  }
}
