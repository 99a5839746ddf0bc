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
    int exit = first.process.stop();
    assertThat(exit).as("exit code after SIGTERM").isIn(0, 143);
    assertThat(first.process.log()).doesNotContain("ERROR").doesNotContain("Exception");

    // same data dir: the H2 database was closed cleanly and main is not created twice
    Path log2 = dataDir.resolve("server2.log");
    try (LetheProcess second = LetheProcess.start(freePort(), dataDir, log2, List.of(), Map.of());
         RESTCatalog client = new ServerFixture.Client(second).open()) {
      assertThat(client.listNamespaces()).containsExactly(Namespace.of("kept"));
    }
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
