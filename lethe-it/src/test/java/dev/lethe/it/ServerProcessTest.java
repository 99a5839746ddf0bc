package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.Test;

/** {@code lethe server} as a process: start-up line, SIGTERM, restart on the same data, bad config. */
class ServerProcessTest {

  @Test
  void logsTheClientUriStopsOnSigtermAndRestartsOnTheSameCatalog() throws Exception {
    ServerFixture first = ServerFixture.start("restart", Map.of());
    Path dataDir = first.dataDir;
    try (RESTCatalog client = first.client(null)) {
      client.createNamespace(Namespace.of("kept"));
    }
    String log = first.process.log();
    assertThat(log).containsOnlyOnce("Lethe Iceberg REST catalog at " + first.process.icebergUri() + " (warehouse=main)");
    assertThat(log).containsOnlyOnce("Auth is off (lethe.auth.file not set): every request is allowed; the server binds 127.0.0.1 only");
    int exit = first.process.stop();
    assertThat(exit).as("exit code after SIGTERM (docs/catalog.md \"Stopping\")").isZero();
    assertThat(first.process.log()).doesNotContain("ERROR").doesNotContain("Exception");

    // same data dir: the H2 database was closed cleanly and main is not created twice
    Path log2 = dataDir.resolve("server2.log");
    try (LetheProcess second = LetheProcess.start(freePort(), dataDir, log2, List.of(), Map.of());
         RESTCatalog client = new ServerFixture.Client(second).open()) {
      assertThat(client.listNamespaces()).containsExactly(Namespace.of("kept"));
    }
  }

  @Test
  void sigtermWhileRequestsAreInFlightFailsNoneWith500AndLogsNoError() throws Exception {
    ServerFixture fixture = ServerFixture.start("sigterm", Map.of());
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    String base = fixture.process.icebergUri() + "/v1/main/namespaces";
    java.util.concurrent.ConcurrentLinkedQueue<Integer> statuses = new java.util.concurrent.ConcurrentLinkedQueue<>();
    java.util.concurrent.CountDownLatch warm = new java.util.concurrent.CountDownLatch(20);
    List<Thread> clients = new java.util.ArrayList<>();
    for (int w = 0; w < 4; w++) {
      int worker = w;
      Thread t = new Thread(() -> {
        for (int i = 0; i < 500; i++) {
          try {
            java.net.http.HttpResponse<String> r = http.send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(base)).POST(java.net.http.HttpRequest.BodyPublishers.ofString(
                    "{\"namespace\":[\"n" + worker + "_" + i + "\"]}")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
            statuses.add(r.statusCode());
            warm.countDown();
          } catch (Exception e) {
            return; // connection refused or closed: the server is gone
          }
        }
      });
      t.start();
      clients.add(t);
    }
    assertThat(warm.await(60, TimeUnit.SECONDS)).isTrue();
    int exit = fixture.process.stop();
    for (Thread t : clients) {
      t.join(60_000);
    }
    assertThat(exit).as("exit code after SIGTERM (docs/catalog.md \"Stopping\")").isZero();
    // requests finish; one arriving on an open connection while stopping gets 503 (JSON), never 500
    assertThat(statuses).isNotEmpty().allSatisfy(s -> assertThat(s).isIn(200, 503));
    assertThat(fixture.process.log()).doesNotContain("ERROR").doesNotContain("Exception");
    fixture.close();
  }

  @Test
  void invalidSettingFailsStartupWithOneLineNamingTheKey() throws Exception {
    String jar = System.getProperty("lethe.it.jar");
    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", jar,
        "server", "--port", "nine").redirectErrorStream(true).start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.exitValue()).isEqualTo(2);
    assertThat(out.strip()).isEqualTo("lethe server: Invalid lethe.server.port: not a number: nine");
  }

  private static int freePort() throws Exception {
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
