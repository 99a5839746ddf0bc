package dev.lethe.cli.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.cli.LetheCommand;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * Every {@code lethe catalog} command against a server with auth on: a refusal (401, 403, 404) is exit 1
 * with one line, as docs/soft-delete.md and {@code lethe store} have it, and a 401 to a command that sent
 * no token says where a token goes. {@code catalog jobs} used to exit 2 for every 4xx and none said
 * how to give a token.
 */
class CatalogCommandsAuthTest {
  private static final String ADMIN = "admin-token-0123456789";
  private static final String STORE_ONLY = "store-only-token-0123";

  @org.junit.jupiter.api.io.TempDir Path dir;
  private LetheServer server;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @BeforeEach
  void start() throws Exception {
    Path auth = dir.resolve("auth.yaml");
    Files.writeString(auth, "principals:\n"
        + "  - name: admin\n    token-sha256: \"" + sha256(ADMIN) + "\"\n    read: [\"*\"]\n    write: [\"*\"]\n"
        + "  - name: laptop\n    token-sha256: \"" + sha256(STORE_ONLY) + "\"\n    store:\n      read: [n]\n      write: [n]\n");
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("server"), null, null, null, 10, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, auth, Map.of("lethe.iceberg-rest.async-purge.worker-threads", "0")));
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private static String sha256(String token) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
  }

  private int run(String command, String... tokenArgs) {
    String url = "http://127.0.0.1:" + server.port();
    String[] base = switch (command) {
      case "jobs" -> new String[] {"catalog", "jobs", "--server", url};
      case "deleted" -> new String[] {"catalog", "deleted", "--server", url, "--catalog", "main", "sales"};
      default -> new String[] {"catalog", "undrop", "--server", url, "--catalog", "main", "sales", "orders"};
    };
    String[] args = new String[base.length + tokenArgs.length];
    System.arraycopy(base, 0, args, 0, base.length);
    System.arraycopy(tokenArgs, 0, args, base.length, tokenArgs.length);
    return execute(args);
  }

  /** Runs the CLI with {@code args}, its stdout and stderr captured afresh in {@code out} and {@code err}. */
  private int execute(String... args) {
    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
    CommandLine cli = LetheCommand.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    return cli.execute(args);
  }

  @ParameterizedTest
  @ValueSource(strings = {"jobs", "deleted", "undrop"})
  void aRefusalIsExit1WithOneLineAndAMissingTokenSaysWhereItGoes(String command) {
    assertThat(run(command)).as("no token: %s", err).isEqualTo(1);
    assertThat(err.toString().strip().lines()).hasSize(1);
    assertThat(err.toString()).contains("(no token given: use --token or LETHE_TOKEN)");
    assertThat(out.toString()).isEmpty();

    assertThat(run(command, "--token", "wrong-token-0123456789")).as("unknown token: %s", err).isEqualTo(1);
    assertThat(err.toString()).contains("Unknown bearer token").doesNotContain("no token given");

    assertThat(run(command, "--token", STORE_ONLY)).as("no catalog grant: %s", err).isEqualTo(1);
    assertThat(err.toString().strip().lines()).hasSize(1);
  }

  @ParameterizedTest
  @ValueSource(strings = {"jobs", "deleted"})
  void anUnknownCatalogIsExit1(String command) {
    String url = "http://127.0.0.1:" + server.port();
    int code = command.equals("jobs")
        ? execute("catalog", "jobs", "--server", url, "--catalog", "nosuch", "--token", ADMIN)
        : execute("catalog", "deleted", "--server", url, "--catalog", "nosuch", "sales", "--token", ADMIN);
    assertThat(code).as("%s: %s", command, err).isEqualTo(1);
    assertThat(err.toString().strip().lines()).hasSize(1);
  }
}
