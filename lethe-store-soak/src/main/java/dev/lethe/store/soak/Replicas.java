package dev.lethe.store.soak;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The soak's {@code lethe server} child processes: each on 127.0.0.1 with its own ports and data
 * directory, all serving one store URI. A replica is killed with SIGKILL ({@link
 * Process#destroyForcibly}) and restarted on the same ports.
 */
final class Replicas implements AutoCloseable {
  /** How long a replica may take to answer after it is (re)started. */
  static final Duration START_LIMIT = Duration.ofMinutes(5);

  private final List<String> serverCommand;
  private final String storeUri;
  private final Map<String, String> settings;
  private final List<Transport> transports;
  private final Path work;
  private final List<Map<Transport, Integer>> ports = new ArrayList<>();
  private final Process[] processes;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /**
   * @param settings server settings ({@code lethe.store.s3.*}) every replica gets as environment
   *     variables, never on its command line, where {@code ps} would show a secret
   */
  Replicas(int count, List<String> serverCommand, String storeUri, Map<String, String> settings, List<Transport> transports,
      Path work) throws IOException {
    this.serverCommand = serverCommand;
    this.storeUri = storeUri;
    this.settings = Map.copyOf(settings);
    this.transports = transports;
    this.work = work;
    this.processes = new Process[count];
    for (int i = 0; i < count; i++) {
      Map<Transport, Integer> p = new HashMap<>();
      p.put(Transport.HTTP, freePort());
      for (Transport t : transports) {
        p.putIfAbsent(t, freePort());
      }
      ports.add(p);
    }
  }

  int size() {
    return processes.length;
  }

  /** The store URI of replica {@code i} for transport {@code t}. */
  String uri(int i, Transport t) {
    return t.uri(ports.get(i).get(t));
  }

  /** Starts every replica and waits until each answers. */
  void startAll() throws IOException {
    for (int i = 0; i < processes.length; i++) {
      launch(i);
    }
    for (int i = 0; i < processes.length; i++) {
      awaitHealthy(i);
    }
  }

  /** Kills replica {@code i} with SIGKILL and waits for it to be gone. */
  void kill(int i) throws InterruptedException {
    processes[i].destroyForcibly();
    processes[i].waitFor(30, TimeUnit.SECONDS);
  }

  /** Starts replica {@code i} again (it must be dead) without waiting for it to answer. */
  void relaunch(int i) throws IOException {
    launch(i);
  }

  /**
   * Whether each replica serves now: answers {@code /healthz}. A replica opens its gRPC port
   * before its HTTP port, so one that answers serves every transport.
   */
  List<Boolean> serving() {
    List<Boolean> serving = new ArrayList<>();
    for (int i = 0; i < processes.length; i++) {
      serving.add(serving(i));
    }
    return serving;
  }

  /**
   * @throws IllegalStateException naming the replica and its log when one exited by itself (the
   *     chaos loop restarts every replica it kills at once, so none is down for another reason)
   */
  void requireRunning() {
    for (int i = 0; i < processes.length; i++) {
      if (!processes[i].isAlive()) {
        throw new IllegalStateException("replica " + i + " exited with " + processes[i].exitValue() + "; see "
            + work.resolve("replica-" + i + ".log"));
      }
    }
  }

  /** Whether replica {@code i} answers {@code /healthz} now. */
  boolean serving(int i) {
    try {
      return processes[i].isAlive() && http.send(HttpRequest.newBuilder(health(i)).timeout(Duration.ofSeconds(2)).build(),
          HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Restarts every replica that is not running, and waits until every one answers. */
  void reviveAll() throws IOException {
    for (int i = 0; i < processes.length; i++) {
      if (!processes[i].isAlive()) {
        launch(i);
      }
    }
    for (int i = 0; i < processes.length; i++) {
      awaitHealthy(i);
    }
  }

  private URI health(int i) {
    return URI.create("http://127.0.0.1:" + ports.get(i).get(Transport.HTTP) + "/healthz");
  }

  private void launch(int i) throws IOException {
    Path dataDir = Files.createDirectories(work.resolve("replica-" + i));
    List<String> cmd = new ArrayList<>(serverCommand);
    cmd.addAll(List.of("server", "--port", Integer.toString(ports.get(i).get(Transport.HTTP)),
        "--data-dir", dataDir.toString(), "--store-uri", storeUri));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(work.resolve("replica-" + i + ".log").toFile()));
    // the replicas serve the store only; no catalog cleanup worker competes for the cores
    pb.environment().put("LETHE_ICEBERG_REST_ASYNC_PURGE_WORKER_THREADS", "0");
    // replicas on one host must not all take the default gRPC port: off unless a transport opens it
    pb.environment().put(Transport.GRPC.portVariable(), "0");
    // lethe server's rule for a key's variable: upper case, '.' and '-' as '_'
    settings.forEach((k, v) -> pb.environment().put(k.toUpperCase(java.util.Locale.ROOT).replace('.', '_').replace('-', '_'), v));
    for (Transport t : transports) {
      if (t.portVariable() != null) {
        pb.environment().put(t.portVariable(), Integer.toString(ports.get(i).get(t)));
      }
    }
    processes[i] = pb.start();
  }

  private void awaitHealthy(int i) {
    URI health = health(i);
    await("replica " + i + " answering " + health).atMost(START_LIMIT).pollInterval(Duration.ofMillis(200))
        .pollInSameThread().until(() -> {
          if (!processes[i].isAlive()) {
            throw new IllegalStateException("replica " + i + " exited with " + processes[i].exitValue() + "; see "
                + work.resolve("replica-" + i + ".log"));
          }
          try {
            return http.send(HttpRequest.newBuilder(health).timeout(Duration.ofSeconds(2)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
          } catch (IOException notYet) {
            return false;
          }
        });
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Stops every replica: SIGTERM, then SIGKILL after 20 s. */
  @Override
  public void close() throws InterruptedException {
    for (Process p : processes) {
      if (p != null) {
        p.destroy();
      }
    }
    for (Process p : processes) {
      if (p != null && !p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }
}
