package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A path {@code lethe server} cannot write stops start-up with exit 2 and one stderr line naming
 * the path (docs/design/0410-operations.md §3), instead of a server that reports healthy and
 * answers 500 to every write.
 *
 * <p>Tests may run as root, for whom {@code chmod} does not stop a write. Paths are made unwritable
 * in ways that hold for root too: a regular file where a directory's parent should be, a regular
 * file or a directory in the way, and for a read-only file or directory {@code chmod} and, when
 * that does not stop the writer, {@code chattr +i} (skipped where neither works).
 */
class UnwritablePathsStartupTest {
  @TempDir Path dir;

  /** What a start that should fail did: its exit code and stderr, or that it served. */
  record Outcome(boolean served, int exit, String stderr) {}

  private Outcome start(Path dataDir, List<String> extraArgs, Map<String, String> env) throws Exception {
    String jar = System.getProperty("lethe.it.jar");
    int port = freePort();
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-jar", jar, "server", "--port", String.valueOf(port), "--data-dir", dataDir.toString()));
    cmd.addAll(extraArgs);
    Path out = Files.createTempFile(dir, "stdout", ".log");
    Path err = Files.createTempFile(dir, "stderr", ".log");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
    pb.environment().putAll(env);
    Process p = pb.start();
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    try {
      await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
          .until(() -> !p.isAlive() || healthy(http, port));
      if (p.isAlive()) {
        return new Outcome(true, -1, Files.readString(err));
      }
      return new Outcome(false, p.exitValue(), Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      p.destroy();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
  }

  private static boolean healthy(HttpClient http, int port) {
    try {
      return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/healthz"))
          .timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
    } catch (IOException | InterruptedException notYet) {
      return false;
    }
  }

  private static void assertRefused(Outcome o, String what, Path path) {
    assertThat(o.served()).as("server started and reports healthy; stderr:\n" + o.stderr()).isFalse();
    assertThat(o.exit()).as(o.stderr()).isEqualTo(2);
    List<String> lines = o.stderr().strip().lines().toList();
    assertThat(lines).as(o.stderr()).hasSize(1);
    assertThat(lines.get(0)).startsWith("lethe server: Cannot write the " + what).contains(path.toString());
  }

  private Path regularFile() throws IOException {
    return Files.writeString(dir.resolve("plain-file"), "not a directory");
  }

  @Test
  void dataDirectoryUnderARegularFileExits2NamingIt() throws Exception {
    Path data = regularFile().resolve("data");
    assertRefused(start(data, List.of(), Map.of()), "data directory (lethe.data-dir)", data);
  }

  @Test
  void dataDirectoryThatIsARegularFileExits2NamingIt() throws Exception {
    Path data = regularFile();
    assertRefused(start(data, List.of(), Map.of()), "data directory (lethe.data-dir)", data);
  }

  @Test
  void h2DatabaseFileThatIsADirectoryExits2NamingIt() throws Exception {
    Path data = dir.resolve("data");
    Path db = Files.createDirectories(data.resolve("catalog.mv.db"));
    assertRefused(start(data, List.of(), Map.of()), "H2 database (lethe.data-dir) file", db);
  }

  @Test
  void h2DatabaseOfAJdbcUrlUnderARegularFileExits2NamingIt() throws Exception {
    Path db = regularFile().resolve("catalog");
    Outcome o = start(dir.resolve("data"), List.of("--jdbc-url", "jdbc:h2:file:" + db), Map.of());
    assertRefused(o, "H2 database (lethe.jdbc.url) directory", db.getParent());
  }

  @Test
  void warehouseUnderARegularFileExits2NamingIt() throws Exception {
    Path warehouse = regularFile().resolve("warehouse");
    Outcome o = start(dir.resolve("data"), List.of(), Map.of("LETHE_CATALOG_WAREHOUSE", warehouse.toString()));
    assertRefused(o, "warehouse of catalog main (lethe.catalog.warehouse)", warehouse);
  }

  @Test
  void storeDirectoryUnderARegularFileExits2NamingIt() throws Exception {
    Path store = regularFile().resolve("store");
    Outcome o = start(dir.resolve("data"), List.of("--store-uri", "file:" + store), Map.of());
    assertRefused(o, "store directory (lethe.store.uri)", store);
  }

  @Test
  void readOnlyDataDirectoryExits2NamingIt() throws Exception {
    Path data = Files.createDirectories(dir.resolve("data"));
    ReadOnly ro = ReadOnly.make(data);
    try {
      assertRefused(start(data, List.of(), Map.of()), "data directory (lethe.data-dir)", data);
    } finally {
      ro.undo();
    }
  }

  @Test
  void readOnlyH2DatabaseFileOfAnExistingCatalogExits2NamingIt() throws Exception {
    Path data = dir.resolve("data");
    try (LetheProcess first = LetheProcess.start(freePort(), data, dir.resolve("first.log"), List.of(), Map.of())) {
      assertThat(first.stop()).isZero();
    }
    Path db = data.resolve("catalog.mv.db");
    assertThat(db).isRegularFile();
    ReadOnly ro = ReadOnly.make(db);
    try {
      // H2 would open a read-only file read-only: healthy, then 500 on every write
      assertRefused(start(data, List.of(), Map.of()), "H2 database (lethe.data-dir) file", db);
    } finally {
      ro.undo();
    }
  }

  /** A file or directory made unwritable for this process, root included where the platform allows. */
  record ReadOnly(Path path, boolean immutable) {
    static ReadOnly make(Path path) throws Exception {
      run("chmod", "a-w", path.toString());
      if (!writable(path)) {
        return new ReadOnly(path, false);
      }
      // root ignores modes; the immutable attribute stops root too (ext4, xfs…)
      boolean set = run("chattr", "+i", path.toString());
      assumeTrue(set && !writable(path), "cannot make " + path + " unwritable for uid " + uid());
      return new ReadOnly(path, true);
    }

    void undo() throws Exception {
      if (immutable) {
        run("chattr", "-i", path.toString());
      }
      run("chmod", "u+w", path.toString());
    }

    private static boolean writable(Path path) {
      try {
        if (Files.isDirectory(path)) {
          Path probe = path.resolve("probe");
          Files.writeString(probe, "x");
          Files.delete(probe);
        } else {
          try (var ignored = java.nio.channels.FileChannel.open(path, java.nio.file.StandardOpenOption.WRITE)) {
            // opened for writing
          }
        }
        return true;
      } catch (IOException e) {
        return false;
      }
    }

    private static boolean run(String... cmd) throws Exception {
      try {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
      } catch (IOException missing) {
        return false;
      }
    }

    private static String uid() {
      try {
        Process p = new ProcessBuilder("id", "-u").start();
        return new String(p.getInputStream().readAllBytes()).strip();
      } catch (IOException e) {
        return "?";
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
