package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.lethe.cli.LetheCommand;
import dev.lethe.store.core.Body;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.FormatVersion;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.RevisionHash;
import dev.lethe.store.core.format.RecordJson;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Every {@code lethe store} command with {@code --store http://…} against a real {@code lethe
 * server} process, a laptop's {@code file:} store synced with it, bearer tokens ({@code --token},
 * {@code LETHE_TOKEN}), and a server that predates replication.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StoreCliRemoteTest {

  record Run(int code, String out, String err) {}

  private Path work;
  private LetheProcess open;
  private LetheProcess guarded;
  private String server;
  private String guardedServer;

  @BeforeAll
  void start() throws Exception {
    work = Files.createDirectories(Path.of(System.getProperty("lethe.it.work-dir", "target/it"),
        "store-cli-remote-" + System.nanoTime()));
    Map<String, String> env = Map.of("LETHE_ICEBERG_REST_ASYNC_PURGE_WORKER_THREADS", "0");
    open = LetheProcess.start(StoreServerPool.freePort(), work.resolve("open"), work.resolve("open.log"), List.of(), env);
    server = "http://127.0.0.1:" + open.port();
    Path auth = Files.writeString(work.resolve("auth.yaml"), "principals:\n"
        + "  - name: admin\n    token-sha256: " + ContentHash.ofUtf8("admin-token") + "\n    read: [\"*\"]\n    write: [\"*\"]\n"
        + "  - name: reader\n    token-sha256: " + ContentHash.ofUtf8("reader-token") + "\n    read: [main]\n    write: []\n");
    guarded = LetheProcess.start(StoreServerPool.freePort(), work.resolve("guarded"), work.resolve("guarded.log"),
        List.of(), Map.of("LETHE_ICEBERG_REST_ASYNC_PURGE_WORKER_THREADS", "0", "LETHE_AUTH_FILE", auth.toString()));
    guardedServer = "http://127.0.0.1:" + guarded.port();
  }

  @AfterAll
  void stop() throws Exception {
    open.close();
    guarded.close();
  }

  private static Run run(String... args) {
    CommandLine cl = new CommandLine();
    return cl.run(args);
  }

  /** Runs {@code lethe args…} in this JVM, capturing stdout and stderr. */
  private static final class CommandLine {
    Run run(String... args) {
      picocli.CommandLine cmd = LetheCommand.commandLine();
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      cmd.setOut(new PrintWriter(out));
      cmd.setErr(new PrintWriter(err));
      int code = cmd.execute(args);
      return new Run(code, out.toString(), err.toString());
    }
  }

  private Path bodyFile(String text) throws Exception {
    return Files.writeString(Files.createTempFile(work, "body", ".txt"), text);
  }

  @Test
  void everyStoreCommandWorksAgainstAServer() throws Exception {
    String[] key = {"--namespace", "cli", "--collection", "c", "--id", "r"};
    Run put = run(concat(new String[] {"store", "put", "--store", server, "--body-file", bodyFile("v1\n").toString()}, key));
    assertThat(put.code()).as(put.err()).isZero();
    assertThat(put.out()).startsWith("committed: cli/c/r\nrevision: {\"counter\":1,");
    Run get = run(concat(new String[] {"store", "get", "--store", server}, key));
    assertThat(get.out()).contains("\"text\" : \"v1\\n\"").contains("\"author\" : \"lethe-cli\"");
    assertThat(run("store", "list", "--store", server, "--namespace", "cli").out()).startsWith("cli/c/r\tdocument\t1\t");
    // a stale --expected is a conflict (exit 3) printing the current revision
    Run stale = run(concat(new String[] {"store", "put", "--store", server, "--body-file", bodyFile("v2").toString(),
        "--expected", "{\"counter\":9,\"hash\":\"" + ContentHash.ofUtf8("x") + "\"}"}, key));
    assertThat(stale.code()).isEqualTo(3);
    assertThat(stale.err()).startsWith("conflict: cli/c/r\ncurrent: {\"counter\":1,");
    // a blob body
    Run blob = run("store", "put", "--store", server, "--namespace", "cli", "--collection", "c", "--id", "b", "--blob",
        "--body-file", bodyFile("a blob").toString());
    assertThat(blob.code()).as(blob.err()).isZero();
    assertThat(run("store", "get", "--store", server, "--namespace", "cli", "--collection", "c", "--id", "b").out())
        .contains("\"blob\" : \"" + ContentHash.ofUtf8("a blob") + "\"");
    Run delete = run(concat(new String[] {"store", "delete", "--store", server}, key));
    assertThat(delete.out()).isEqualTo("deleted: cli/c/r\n");
    Run gone = run(concat(new String[] {"store", "get", "--store", server}, key));
    assertThat(gone.code()).isEqualTo(1);
    assertThat(gone.err()).isEqualTo("not found: cli/c/r\n");
    assertThat(run(concat(new String[] {"store", "get", "--raw", "--store", server}, key)).out())
        .contains("\"kind\" : \"tombstone\"").contains("\"author\" : \"lethe-cli\"");
    Run reset = run("store", "reset", "--store", server, "--namespace", "cli");
    assertThat(reset.out()).startsWith("1 deleted, 0 conflicts");
    Run collect = run("store", "collect", "--store", server, "--namespace", "cli", "--older-than", "1s");
    assertThat(collect.code()).as(collect.err()).isZero();
    Run gc = run("store", "gc", "--store", server, "--grace", "1s");
    assertThat(gc.code()).as(gc.err()).isZero();
    assertThat(gc.out()).contains("grace: 1s");
  }

  private static String printedRevision(Run put) {
    assertThat(put.code()).as(put.err()).isZero();
    return put.out().lines().filter(l -> l.startsWith("revision: ")).findFirst().orElseThrow().substring(10);
  }

  private String linesPut(String store, String ns, String text, String... more) throws Exception {
    return printedRevision(run(concat(new String[] {"store", "put", "--store", store, "--namespace", ns, "--collection",
        "c", "--id", "r", "--kind", "lines", "--body-file", bodyFile(text).toString()}, more)));
  }

  private static String linesBody(String store, String ns) {
    Run get = run("store", "get", "--store", store, "--namespace", ns, "--collection", "c", "--id", "r");
    assertThat(get.code()).as(get.err()).isZero();
    return ((Body.Inline) new RecordJson().parse(get.out()).body()).text();
  }

  @Test
  void aLineRemovedOnTheLaptopStaysRemovedWhenTheServerAppendsAndTheySync() throws Exception {
    String laptop = "file:" + work.resolve("laptop-lines");
    String r1 = linesPut(server, "lines", "l1\nl2\nl3\n");
    assertThat(run("store", "sync", "--store", laptop, "--peer", server, "--namespace", "lines").code()).isZero();
    linesPut(laptop, "lines", "l1\nl3\n", "--expected", r1);
    linesPut(server, "lines", "l1\nl2\nl3\nl4\n", "--expected", r1);
    Run sync = run("store", "sync", "--store", laptop, "--peer", server, "--namespace", "lines");
    assertThat(sync.code()).as(sync.err()).isZero();
    assertThat(sync.out()).isEqualTo("copied: 0\nfast-forwarded: 0\nmerged: 1\nrestored tombstones: 0\nconflicts: 0\nconverged: yes\n");
    assertThat(linesBody(laptop, "lines")).isEqualTo("l1\nl3\nl4\n");
    assertThat(linesBody(server, "lines")).isEqualTo("l1\nl3\nl4\n");
  }

  @Test
  void linesRecordsWithoutACommonBaseAreAConflictExit3AgainstAServer() throws Exception {
    // Format-2 versions (written before bases existed) of one record, on the laptop and in the server's files.
    RecordKey key = new RecordKey("nobase", "c", "r");
    Body base = Body.Inline.text("l1\nl2\nl3\n");
    Revision r1 = new Revision(1, RevisionHash.of(FormatVersion.V2, Kind.LINES, base));
    Path laptopDir = work.resolve("laptop-nobase");
    Path serverFile = work.resolve("open").resolve("store").resolve("nobase").resolve("c").resolve("r.json");
    Files.createDirectories(serverFile.getParent());
    Files.createDirectories(laptopDir.resolve("nobase").resolve("c"));
    for (var side : List.of(Map.entry(laptopDir.resolve("nobase/c/r.json"), "l1\nl3\n"),
        Map.entry(serverFile, "l1\nl2\nl3\nl4\n"))) {
      Body b = Body.Inline.text(side.getValue());
      Files.write(side.getKey(), new RecordJson().encode(new Record(key, Kind.LINES,
          new Revision(2, RevisionHash.of(FormatVersion.V2, Kind.LINES, b)), r1, List.of(r1), b, Meta.EMPTY, null, null,
          List.of(), FormatVersion.V2)));
    }
    String laptop = "file:" + laptopDir;
    Run sync = run("store", "sync", "--store", laptop, "--peer", server, "--namespace", "nobase");
    assertThat(sync.code()).as(sync.err()).isEqualTo(3);
    assertThat(sync.out()).contains("merged: 0\nrestored tombstones: 0\nconflicts: 1\nconverged: no\n");
    assertThat(sync.err()).startsWith("conflict: nobase/c/r: ").contains("neither keeps the lines of their common ancestor");
    assertThat(linesBody(laptop, "nobase")).isEqualTo("l1\nl3\n");
    assertThat(linesBody(server, "nobase")).isEqualTo("l1\nl2\nl3\nl4\n");
  }

  @Test
  void aRecordEditedByHandOnTheServerIsNeverServedNorSyncedAndGetExits1NamingIt() throws Exception {
    String[] key = {"--namespace", "hand", "--collection", "c", "--id", "r"};
    Run put = run(concat(new String[] {"store", "put", "--store", server, "--body-file", bodyFile("v1").toString()}, key));
    assertThat(put.code()).as(put.err()).isZero();
    assertThat(run("store", "put", "--store", server, "--namespace", "hand", "--collection", "c", "--id", "s",
        "--body-file", bodyFile("fine").toString()).code()).isZero();
    Path file = work.resolve("open").resolve("store").resolve("hand").resolve("c").resolve("r.json");
    Files.writeString(file, Files.readString(file).replace("\"text\" : \"v1\"", "\"text\" : \"v2\""));
    Run get = run(concat(new String[] {"store", "get", "--store", server}, key));
    assertThat(get.code()).isEqualTo(1);
    assertThat(get.err().lines().toList()).singleElement().asString()
        .contains("Corrupt record hand/c/r").contains(server).contains(file.getFileName().toString())
        .contains("does not match");
    String laptop = "file:" + work.resolve("laptop-hand");
    Run sync = run("store", "sync", "--store", laptop, "--peer", server, "--namespace", "hand");
    assertThat(sync.code()).isEqualTo(1);
    assertThat(sync.out()).contains("copied: 1\n").contains("corrupt: 1\n").contains("converged: no\n");
    assertThat(sync.err().lines().toList()).singleElement().asString().startsWith("corrupt: hand/c/r: ");
    assertThat(Files.exists(work.resolve("laptop-hand").resolve("hand/c/r.json"))).isFalse();
    assertThat(Files.exists(work.resolve("laptop-hand").resolve("hand/c/s.json"))).isTrue();
    assertThat(Files.readString(file)).contains("v2");
  }

  @Test
  void aLaptopSyncsWithTheServerAndADeleteTravelsBothWays() throws Exception {
    String laptop = "file:" + work.resolve("laptop");
    String[] mine = {"--namespace", "sync", "--collection", "notes", "--id", "mine"};
    String[] theirs = {"--namespace", "sync", "--collection", "notes", "--id", "theirs"};
    assertThat(run(concat(new String[] {"store", "put", "--store", laptop, "--body-file", bodyFile("m").toString()}, mine))
        .code()).isZero();
    assertThat(run(concat(new String[] {"store", "put", "--store", server, "--body-file", bodyFile("t").toString()}, theirs))
        .code()).isZero();
    Run first = run("store", "sync", "--store", laptop, "--peer", server, "--namespace", "sync");
    assertThat(first.code()).as(first.err()).isZero();
    assertThat(first.out()).startsWith("copied: 2\n").contains("converged: yes");
    // delete on the laptop, sync: the server holds the tombstone; nothing comes back
    assertThat(run(concat(new String[] {"store", "delete", "--store", laptop}, theirs)).code()).isZero();
    assertThat(run("store", "sync", "--store", laptop, "--peer", server, "--namespace", "sync").out())
        .contains("fast-forwarded: 1");
    assertThat(run(concat(new String[] {"store", "get", "--store", server}, theirs)).code()).isEqualTo(1);
    assertThat(run("store", "sync", "--store", server, "--peer", laptop, "--namespace", "sync").out())
        .startsWith("copied: 0\nfast-forwarded: 0\nmerged: 0\nrestored tombstones: 0\nconflicts: 0\nconverged: yes");
    assertThat(run(concat(new String[] {"store", "get", "--store", laptop}, theirs)).code()).isEqualTo(1);
  }

  @Test
  void aTokenFromTheOptionOrLetheTokenIsSentAndNeverPrinted() throws Exception {
    String[] key = {"--namespace", "auth", "--collection", "c", "--id", "r"};
    Run none = run(concat(new String[] {"store", "list", "--store", guardedServer}, new String[0]));
    assertThat(none.code()).isEqualTo(1);
    assertThat(none.err().lines()).hasSize(1);
    assertThat(none.err()).contains("HTTP 401").contains("--token or LETHE_TOKEN");
    Run reader = run(concat(new String[] {"store", "put", "--store", guardedServer, "--token", "reader-token",
        "--body-file", bodyFile("x").toString()}, key));
    assertThat(reader.code()).isEqualTo(1);
    assertThat(reader.err()).contains("HTTP 403").doesNotContain("reader-token");
    Run admin = run(concat(new String[] {"store", "put", "--store", guardedServer, "--token", "admin-token",
        "--body-file", bodyFile("x").toString()}, key));
    assertThat(admin.code()).as(admin.err()).isZero();
    // LETHE_TOKEN, in a real lethe process
    ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
        System.getProperty("lethe.it.jar"), "store", "get", "--store", guardedServer, "--namespace", "auth",
        "--collection", "c", "--id", "r");
    pb.environment().put("LETHE_TOKEN", "admin-token");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(err).isZero();
    assertThat(out).contains("\"key\" : \"auth/c/r\"");
    assertThat(err).isEmpty();
    assertThat(guarded.log()).doesNotContain("admin-token").doesNotContain("reader-token");
  }

  /**
   * A token with a space, a control character or a non-ASCII character can never authenticate;
   * the JDK's HTTP client refused it with a message (or, from {@code lethe catalog}, a stack trace)
   * quoting the whole token. Now it is exit 2 with one line naming where it came from, never the
   * token (docs/design/0414-a-bad-token-is-refused-unprinted.md). A store URI carrying a token in
   * its query or fragment is refused without echoing that part, as user info already was.
   */
  @Test
  void aTokenThatCannotBeSentIsExit2WithOneLineThatNeverShowsIt() throws Exception {
    for (String bad : List.of("s3cr3t\nt0ken", "s3cr3t\u0001t0ken", "s3cr3t t0ken", "s3cr3t\u00e9t0ken")) {
      Run store = run("store", "get", "--store", guardedServer, "--token", bad, "--namespace", "auth",
          "--collection", "c", "--id", "r");
      assertThat(store.code()).as(store.err()).isEqualTo(2);
      assertThat(store.err().lines().toList()).singleElement().asString()
          .contains("--token").doesNotContain("s3cr3t").doesNotContain("t0ken");
      Run catalog = run("catalog", "jobs", "--server", guardedServer.replace("/store/v1", ""), "--token", bad);
      assertThat(catalog.code()).as(catalog.err()).isEqualTo(2);
      assertThat(catalog.err().lines().toList()).singleElement().asString()
          .contains("--token").doesNotContain("s3cr3t").doesNotContain("t0ken");
    }
    // a token put in the store URI is refused (use --token) and not echoed either
    for (String uri : List.of(guardedServer + "/?access_token=s3cr3t", guardedServer + "/#s3cr3t",
        guardedServer.replace("http://", "http://u:s3cr3t@"))) {
      Run list = run("store", "list", "--store", uri, "--namespace", "auth");
      assertThat(list.code()).as(list.err()).isEqualTo(2);
      assertThat(list.err().lines().toList()).singleElement().asString()
          .contains("--token or LETHE_TOKEN").doesNotContain("s3cr3t");
      Run sync = run("store", "sync", "--store", "file:" + work.resolve("laptop-uri"), "--peer", uri);
      assertThat(sync.code()).as(sync.err()).isEqualTo(2);
      assertThat(sync.err()).contains("--peer").doesNotContain("s3cr3t");
    }
    // LETHE_TOKEN, in a real lethe process
    for (String command : List.of("store", "catalog")) {
      List<String> args = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-jar", System.getProperty("lethe.it.jar")));
      args.addAll(command.equals("store")
          ? List.of("store", "list", "--store", guardedServer, "--namespace", "auth")
          : List.of("catalog", "jobs", "--server", guardedServer));
      ProcessBuilder pb = new ProcessBuilder(args);
      pb.environment().put("LETHE_TOKEN", "s3cr3t\u0001t0ken");
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as(command + ": " + err).isEqualTo(2);
      assertThat(out).isEmpty();
      assertThat(err.lines().toList()).as(command).singleElement().asString()
          .contains("LETHE_TOKEN").doesNotContain("s3cr3t").doesNotContain("t0ken");
    }
  }

  @Test
  void aServerThatPredatesReplicationFailsTheSyncWithOneLineAndNothingIsWritten() throws Exception {
    HttpServer old = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    List<String> writes = new ArrayList<>();
    old.createContext("/", exchange -> {
      if (!exchange.getRequestMethod().equals("GET")) {
        writes.add(exchange.getRequestMethod() + " " + exchange.getRequestURI());
      }
      byte[] body = "{\"message\":\"No route\"}".getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(404, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    old.start();
    try {
      String laptop = "file:" + work.resolve("old-laptop");
      String oldServer = "http://127.0.0.1:" + old.getAddress().getPort();
      assertThat(run("store", "put", "--store", laptop, "--namespace", "n", "--collection", "c", "--id", "r",
          "--body-file", bodyFile("v").toString()).code()).isZero();
      Path record = work.resolve("old-laptop/n/c/r.json");
      String before = Files.readString(record);
      for (String[] args : List.of(
          new String[] {"store", "sync", "--store", laptop, "--peer", oldServer},
          new String[] {"store", "sync", "--store", oldServer, "--peer", laptop},
          new String[] {"store", "list", "--raw", "--store", oldServer})) {
        Run sync = run(args);
        assertThat(sync.code()).isEqualTo(1);
        assertThat(sync.err().lines()).hasSize(1);
        assertThat(sync.err()).contains("too old for replication (HTTP 404").contains("upgrade");
      }
      assertThat(writes).isEmpty();
      assertThat(Files.readString(record)).isEqualTo(before);
    } finally {
      old.stop(0);
    }
  }

  @Test
  void anUnreachableServerIsAnErrorOfOneLineAndABadUrlAUsageError() throws Exception {
    Run down = run("store", "list", "--store", "http://127.0.0.1:" + StoreServerPool.freePort());
    assertThat(down.code()).isEqualTo(1);
    assertThat(down.err().lines()).hasSize(1);
    assertThat(down.err()).contains("cannot connect");
    Run bad = run("store", "list", "--store", "http://user:secret@127.0.0.1:1");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err()).doesNotContain("secret");
  }

  private static String[] concat(String[] a, String[] b) {
    String[] out = new String[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
