package dev.lethe.it;

import java.io.IOException;
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
 * A real {@code lethe server} process started from the shaded jar ({@code lethe.it.jar}), waited
 * for until {@code /healthz} answers, and stopped with SIGTERM (then killed if it hangs).
 */
public final class LetheProcess implements AutoCloseable {
  private final Process process;
  private final int port;
  private final Path log;

  private LetheProcess(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /**
   * Starts a server and waits up to 90 s for it.
   *
   * @param port port to listen on
   * @param dataDir fresh data directory
   * @param log file receiving the process's stdout and stderr
   * @param extraArgs further {@code lethe server} options, e.g. {@code --jdbc-url …}
   * @param env extra environment variables (e.g. {@code LETHE_AUTH_FILE})
   */
  public static LetheProcess start(int port, Path dataDir, Path log, List<String> extraArgs, java.util.Map<String, String> env)
      throws IOException, InterruptedException {
    return start(List.of(), port, dataDir, log, extraArgs, env);
  }

  /**
   * {@link #start(int, Path, Path, List, java.util.Map)} run through a launcher, e.g. {@code env
   * --ignore-signal=HUP}: {@code launcher} comes before {@code java} on the command line.
   */
  public static LetheProcess start(List<String> launcher, int port, Path dataDir, Path log, List<String> extraArgs,
      java.util.Map<String, String> env) throws IOException, InterruptedException {
    String jar = System.getProperty("lethe.it.jar");
    if (jar == null || !Files.isRegularFile(Path.of(jar))) {
      throw new IllegalStateException("lethe.it.jar does not name the shaded lethe jar: " + jar);
    }
    List<String> cmd = new ArrayList<>(launcher);
    cmd.addAll(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m", "-jar", jar,
        "server", "--port", String.valueOf(port), "--data-dir", dataDir.toString()));
    cmd.addAll(extraArgs);
    Files.createDirectories(log.getParent());
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().putAll(env);
    Process p = pb.start();
    LetheProcess server = new LetheProcess(p, port, log);
    server.awaitHealthy(Duration.ofSeconds(90));
    return server;
  }

  private void awaitHealthy(Duration timeout) throws IOException, InterruptedException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    try {
      Awaitility.await("lethe server to answer /healthz").atMost(timeout).pollInterval(Duration.ofMillis(250))
          .until(() -> {
            if (!process.isAlive()) {
              throw new IllegalStateException("lethe server exited with " + process.exitValue() + "; log:\n" + Files.readString(log));
            }
            try {
              HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/healthz"))
                  .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
              return r.statusCode() == 200;
            } catch (IOException notYet) {
              return false; // not listening yet
            }
          });
    } catch (ConditionTimeoutException timedOut) {
      close();
      throw new IllegalStateException("lethe server did not answer on port " + port + " within " + timeout + "; log:\n" + Files.readString(log));
    }
  }

  /** The port the server listens on. */
  public int port() {
    return port;
  }

  /** The Iceberg REST URI of this server. */
  public String icebergUri() {
    return "http://127.0.0.1:" + port + "/iceberg";
  }

  /** The server process, e.g. to send SIGTERM without waiting ({@code pid().destroy()}). */
  public ProcessHandle pid() {
    return process.toHandle();
  }

  /** The process's combined output so far. */
  public String log() throws IOException {
    return Files.readString(log);
  }

  /** Sends SIGTERM and waits for a clean exit (up to 30 s), then kills. Returns the exit code. */
  public int stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
      return -1;
    }
    return process.exitValue();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      stop();
    }
  }
}
