package dev.lethe.it;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A real {@code lethe server} process for the async purge tests, started from the shaded jar with
 * this module's test classes on the class path (so {@link CountingFileIO} can be its {@code
 * io-impl}); {@link #kill()} is a SIGKILL.
 */
final class PurgeServer implements AutoCloseable {
  final Process process;
  final int port;
  final Path log;

  private PurgeServer(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  static PurgeServer start(Path dataDir, List<String> args) throws Exception {
    String jar = System.getProperty("lethe.it.jar");
    if (jar == null || !Files.isRegularFile(Path.of(jar))) {
      throw new IllegalStateException("lethe.it.jar does not name the shaded lethe jar: " + jar);
    }
    String testClasses = Path.of(CountingFileIO.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Files.createDirectories(dataDir);
    Path log = dataDir.resolve("server-" + port + ".log");
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
        // the server's own logging config, not this module's logback-test.xml on the class path
        "-Dlogback.configurationFile=logback.xml",
        "-cp", jar + File.pathSeparator + testClasses, "dev.lethe.cli.LetheCommand",
        "server", "--port", String.valueOf(port), "--data-dir", dataDir.toString()));
    cmd.addAll(args);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    PurgeServer server = new PurgeServer(p, port, log);
    server.awaitHealthy();
    return server;
  }

  private void awaitHealthy() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    try {
      Awaitility.await("lethe server to answer /healthz").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
          .until(() -> {
            if (!process.isAlive()) {
              throw new IllegalStateException("lethe server exited; log:\n" + Files.readString(log));
            }
            try {
              return http.send(HttpRequest.newBuilder(URI.create(base() + "/healthz")).build(), HttpResponse.BodyHandlers.ofString())
                  .statusCode() == 200;
            } catch (IOException notYet) {
              return false; // not listening yet
            }
          });
    } catch (ConditionTimeoutException timedOut) {
      kill();
      throw new IllegalStateException("lethe server did not start; log:\n" + Files.readString(log));
    }
  }

  String base() {
    return "http://127.0.0.1:" + port;
  }

  String icebergUri() {
    return base() + "/iceberg";
  }

  String logText() throws IOException {
    return Files.readString(log);
  }

  /** SIGKILL: no shutdown hook runs, the job's heartbeat just stops. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        kill();
      }
    }
  }
}
