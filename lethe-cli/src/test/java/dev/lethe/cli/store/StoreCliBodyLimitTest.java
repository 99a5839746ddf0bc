package dev.lethe.cli.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.cli.LetheCommand;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * A body over the server's request limit ({@code lethe.http.max-request-bytes}) fails with one line that
 * names the limit, whether the server answered {@code 413} or (for a body over twice the limit) closed
 * the connection without answering (docs/design/0117-answering-refused-bodies.md). Before, the second
 * case printed only the HTTP client's "HTTP/1.1 header parser received no bytes".
 */
class StoreCliBodyLimitTest {
  private static final long LIMIT = 64 * 1024;

  @org.junit.jupiter.api.io.TempDir Path dir;
  private LetheServer server;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @BeforeEach
  void start() {
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("server"), null, null, null, 10, null,
        LIMIT, null, Map.of("lethe.iceberg-rest.async-purge.worker-threads", "0")));
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private int run(String... args) {
    CommandLine cli = LetheCommand.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    return cli.execute(args);
  }

  @ParameterizedTest
  // just over the limit (a 413 answer) and far over it (the server closes the connection unread)
  @ValueSource(ints = {70 * 1024, 4 * 1024 * 1024})
  void aBodyOverTheServersLimitIsOneLineNamingTheLimit(int bytes) throws Exception {
    Path body = dir.resolve("body.txt");
    Files.writeString(body, "x".repeat(bytes), StandardCharsets.US_ASCII);
    for (String blob : new String[] {"--kind=document", "--blob"}) {
      out.getBuffer().setLength(0);
      err.getBuffer().setLength(0);
      int code = run("store", "put", "--store", "http://127.0.0.1:" + server.port(), "--namespace", "n",
          "--collection", "c", "--id", "big", "--body-file", body.toString(), blob);

      assertThat(code).as("%s: %s", blob, err).isEqualTo(1);
      assertThat(out.toString()).isEmpty();
      assertThat(err.toString().strip().lines()).as(blob).hasSize(1);
      assertThat(err.toString()).as(blob).contains("lethe.http.max-request-bytes");
    }
    assertThat(run("store", "get", "--store", "http://127.0.0.1:" + server.port(), "--namespace", "n",
        "--collection", "c", "--id", "big")).as("nothing was written").isEqualTo(1);
  }
}
