package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.cli.LetheCommand;
import dev.lethe.store.core.ContentHash;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code lethe store … --store grpc://host:port} and {@code --peer grpc://…} against a real {@code
 * lethe server} process with auth on (docs/store.md "gRPC").
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StoreCliGrpcTest {

  private LetheProcess process;
  private Path work;
  private String grpc;

  private record Run(int code, String out, String err) {}

  @BeforeAll
  void start() throws Exception {
    work = Files.createDirectories(Path.of(System.getProperty("lethe.it.work-dir", "target/it"),
        "store-cli-grpc-" + System.nanoTime()));
    Path auth = Files.writeString(work.resolve("auth.yaml"), "principals:\n"
        + "  - name: admin\n    token-sha256: " + ContentHash.ofUtf8("admin-token") + "\n    read: [\"*\"]\n    write: [\"*\"]\n");
    int port = StoreServerPool.freePort();
    process = LetheProcess.start(StoreServerPool.freePort(), work.resolve("data"), work.resolve("server.log"), List.of(),
        Map.of("LETHE_ICEBERG_REST_ASYNC_PURGE_WORKER_THREADS", "0", "LETHE_AUTH_FILE", auth.toString(),
            "LETHE_STORE_GRPC_PORT", Integer.toString(port)));
    grpc = "grpc://127.0.0.1:" + port;
  }

  @AfterAll
  void stop() throws Exception {
    process.close();
  }

  private static Run run(String... args) {
    picocli.CommandLine cmd = LetheCommand.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cmd.setOut(new PrintWriter(out));
    cmd.setErr(new PrintWriter(err));
    int code = cmd.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  private Path body(String text) throws Exception {
    return Files.writeString(Files.createTempFile(work, "body", ".txt"), text);
  }

  @Test
  void putGetListDeleteOverGrpc() throws Exception {
    Run put = run("store", "put", "--store", grpc, "--token", "admin-token", "--namespace", "cli", "--collection", "c",
        "--id", "r", "--body-file", body("v1\n").toString());
    assertThat(put.code()).as(put.err()).isZero();
    assertThat(put.out()).startsWith("committed: cli/c/r\nrevision: {\"counter\":1,");
    Run get = run("store", "get", "--store", grpc, "--token", "admin-token", "--namespace", "cli", "--collection", "c",
        "--id", "r");
    assertThat(get.out()).contains("\"text\" : \"v1\\n\"").contains("\"author\" : \"lethe-cli\"");
    Run stale = run("store", "put", "--store", grpc, "--token", "admin-token", "--namespace", "cli", "--collection", "c",
        "--id", "r", "--body-file", body("v2").toString(),
        "--expected", "{\"counter\":9,\"hash\":\"" + ContentHash.ofUtf8("x") + "\"}");
    assertThat(stale.code()).isEqualTo(3);
    assertThat(stale.err()).startsWith("conflict: cli/c/r\ncurrent: {\"counter\":1,");
    assertThat(run("store", "list", "--store", grpc, "--token", "admin-token", "--namespace", "cli").out())
        .startsWith("cli/c/r\tdocument\t1\t");
    Run delete = run("store", "delete", "--store", grpc, "--token", "admin-token", "--namespace", "cli",
        "--collection", "c", "--id", "r");
    assertThat(delete.out()).isEqualTo("deleted: cli/c/r\n");
    Run gone = run("store", "get", "--store", grpc, "--token", "admin-token", "--namespace", "cli", "--collection", "c",
        "--id", "r");
    assertThat(gone.code()).isEqualTo(1);
  }

  @Test
  void aLaptopSyncsWithAGrpcPeerAndADeleteTravels() throws Exception {
    String laptop = "file:" + work.resolve("laptop");
    assertThat(run("store", "put", "--store", laptop, "--namespace", "sync", "--collection", "n", "--id", "mine",
        "--body-file", body("m").toString()).code()).isZero();
    assertThat(run("store", "put", "--store", grpc, "--token", "admin-token", "--namespace", "sync", "--collection", "n",
        "--id", "theirs", "--body-file", body("t").toString()).code()).isZero();
    Run first = run("store", "sync", "--store", laptop, "--peer", grpc, "--token", "admin-token", "--namespace", "sync");
    assertThat(first.code()).as(first.err()).isZero();
    assertThat(first.out()).startsWith("copied: 2\n").contains("converged: yes");
    assertThat(run("store", "delete", "--store", laptop, "--namespace", "sync", "--collection", "n", "--id", "theirs")
        .code()).isZero();
    assertThat(run("store", "sync", "--store", laptop, "--peer", grpc, "--token", "admin-token", "--namespace", "sync")
        .out()).contains("fast-forwarded: 1");
    assertThat(run("store", "get", "--raw", "--store", grpc, "--token", "admin-token", "--namespace", "sync",
        "--collection", "n", "--id", "theirs").out()).contains("\"kind\" : \"tombstone\"");
  }

  @Test
  void aWrongTokenExits1WithOneLineAndABadUriExits2() {
    Run wrong = run("store", "list", "--store", grpc, "--token", "not-the-token", "--namespace", "cli");
    assertThat(wrong.code()).isEqualTo(1);
    assertThat(wrong.err().lines().toList()).singleElement().asString().contains("UNAUTHENTICATED")
        .doesNotContain("not-the-token");
    Run bad = run("store", "list", "--store", "grpc://127.0.0.1", "--namespace", "cli");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err().lines().toList()).singleElement().asString()
        .isEqualTo("lethe store list: --store: Invalid store URI 'grpc://127.0.0.1': expected grpc://host:port");
  }
}
