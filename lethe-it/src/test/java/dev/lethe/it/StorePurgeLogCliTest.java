package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.cli.LetheCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Collection that cannot resurrect, end to end through the CLI against a real {@code lethe server}
 * process whose store clock the test sets (docs/design/0150-store-identity-and-peers.md to
 * docs/design/0153-collect-gating.md): laptops are {@code file:} stores on this JVM's clock.
 * Server clock moves stay under the 5-minute skew tolerance, except in the skew case.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StorePurgeLogCliTest {

  record Run(int code, String out, String err) {}

  private Path work;
  private Path clockFile;
  private long serverNow;
  private LetheProcess process;
  private String server;

  @BeforeAll
  void start() throws Exception {
    work = Files.createDirectories(Path.of(System.getProperty("lethe.it.work-dir", "target/it"),
        "store-purge-log-" + System.nanoTime()));
    clockFile = work.resolve("clock");
    setServerClock(System.currentTimeMillis());
    process = LetheProcess.start(StoreServerPool.freePort(), work.resolve("server"), work.resolve("server.log"), List.of(),
        Map.of("LETHE_ICEBERG_REST_ASYNC_PURGE_WORKER_THREADS", "0", "LETHE_STORE_TESTING_CLOCK_FILE", clockFile.toString()));
    server = "http://127.0.0.1:" + process.port();
  }

  @AfterAll
  void stop() throws Exception {
    process.close();
  }

  private void setServerClock(long ms) throws Exception {
    serverNow = ms;
    Path tmp = Files.writeString(work.resolve("clock.tmp"), Long.toString(ms));
    Files.move(tmp, clockFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private void advanceServer(Duration d) throws Exception {
    setServerClock(serverNow + d.toMillis());
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

  private Run put(String store, String ns, String id, String text, String... extra) throws Exception {
    String[] base = {"store", "put", "--store", store, "--namespace", ns, "--collection", "c", "--id", id,
        "--body-file", body(text).toString()};
    String[] all = new String[base.length + extra.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(extra, 0, all, base.length, extra.length);
    Run r = run(all);
    assertThat(r.code()).as(r.err()).isZero();
    return r;
  }

  private Run get(String store, String ns, String id, boolean raw) {
    return raw ? run("store", "get", "--raw", "--store", store, "--namespace", ns, "--collection", "c", "--id", id)
        : run("store", "get", "--store", store, "--namespace", ns, "--collection", "c", "--id", id);
  }

  private void delete(String store, String ns, String id) {
    Run r = run("store", "delete", "--store", store, "--namespace", ns, "--collection", "c", "--id", id);
    assertThat(r.code()).as(r.err()).isZero();
  }

  private Run sync(String laptop, String ns) {
    return run("store", "sync", "--store", laptop, "--peer", server, "--namespace", ns);
  }

  private String laptop(String name) {
    return "file:" + work.resolve(name);
  }

  private static String storeId(String peersOut) {
    Matcher m = Pattern.compile("^store (\\S+)$", Pattern.MULTILINE).matcher(peersOut);
    assertThat(m.find()).as(peersOut).isTrue();
    return m.group(1);
  }

  private void forgetAllPeersOfTheServer() {
    Run peers = run("store", "peers", "--store", server);
    for (String line : peers.out().split("\n")) {
      if (line.matches("[0-9a-f-]{36}  last sync .*")) {
        assertThat(run("store", "peers", "forget", "--store", server, line.substring(0, 36)).code()).isZero();
      }
    }
    assertThat(run("store", "peers", "--store", server).out()).contains("no peers");
  }

  @Test
  void collectionNeverResurrectsAndWaitsForPeers() throws Exception {
    // 1. a stale laptop after collect: no resurrection, the laptop receives the tombstone
    String stale = laptop("stale");
    put(server, "a", "r", "v1\n");
    assertThat(sync(stale, "a").code()).isZero();
    advanceServer(Duration.ofSeconds(1));
    delete(server, "a", "r");
    advanceServer(Duration.ofMinutes(2));
    // 2. a peer behind: refused, one line naming it, nothing purged
    Run refused = run("store", "collect", "--store", server, "--older-than", "1m");
    assertThat(refused.code()).as(refused.out() + refused.err()).isEqualTo(3);
    String staleId = storeId(run("store", "peers", "--store", stale).out());
    assertThat(refused.err()).contains("held back: peer " + staleId).contains("has not synced past 1 tombstone");
    assertThat(refused.out()).contains("purged: 0");
    assertThat(get(server, "a", "r", true).out()).contains("\"kind\" : \"tombstone\"");
    assertThat(run("store", "peers", "--store", server).out()).contains(staleId + "  last sync ");
    Run forced = run("store", "collect", "--store", server, "--older-than", "1m", "--force");
    assertThat(forced.code()).as(forced.err()).isZero();
    assertThat(forced.out()).contains("purged: 1");
    assertThat(get(server, "a", "r", true).code()).isEqualTo(1);
    Run back = sync(stale, "a");
    assertThat(back.code()).as(back.err()).isZero();
    assertThat(back.out()).contains("restored tombstones: 1").contains("copied: 0").contains("converged: yes");
    assertThat(get(server, "a", "r", false).code()).isEqualTo(1);
    assertThat(get(server, "a", "r", true).out()).contains("\"kind\" : \"tombstone\"");
    assertThat(get(stale, "a", "r", false).code()).isEqualTo(1);
    assertThat(get(stale, "a", "r", true).out()).contains("\"kind\" : \"tombstone\"");

    // 3. an offline edit of the deleted revision: a conflict, exit 3, nothing written
    forgetAllPeersOfTheServer();
    setServerClock(System.currentTimeMillis());
    String editor = laptop("editor");
    put(server, "b", "r", "v1\n");
    assertThat(sync(editor, "b").code()).isZero();
    String rev = get(editor, "b", "r", false).out().replaceAll("(?s).*\"revision\" : (\\{[^}]*\\}).*", "$1").replaceAll("\\s", "");
    put(editor, "b", "r", "edited offline\n", "--expected", rev);
    advanceServer(Duration.ofSeconds(1));
    delete(server, "b", "r");
    advanceServer(Duration.ofMinutes(2));
    assertThat(run("store", "collect", "--store", server, "--older-than", "1m", "--namespace", "b", "--force").out()).contains("purged: 1");
    Run conflict = sync(editor, "b");
    assertThat(conflict.code()).as(conflict.out() + conflict.err()).isEqualTo(3);
    assertThat(conflict.err()).contains("conflict: b/c/r: deleted at").contains("collected");
    assertThat(get(server, "b", "r", true).code()).isEqualTo(1);
    assertThat(get(editor, "b", "r", false).out()).contains("edited offline");

    // 4. --seen-by-all collects exactly the tombstones every peer synced past
    forgetAllPeersOfTheServer();
    setServerClock(System.currentTimeMillis());
    String peer = laptop("peer");
    put(server, "c", "early", "e\n");
    put(server, "c", "late", "l\n");
    assertThat(sync(peer, "c").code()).isZero();
    advanceServer(Duration.ofSeconds(1));
    delete(server, "c", "early");
    advanceServer(Duration.ofSeconds(1));
    assertThat(sync(peer, "c").code()).isZero();
    advanceServer(Duration.ofSeconds(1));
    delete(server, "c", "late");
    advanceServer(Duration.ofMinutes(2));
    Run seen = run("store", "collect", "--store", server, "--older-than", "1m", "--namespace", "c", "--seen-by-all");
    assertThat(seen.code()).as(seen.err()).isZero();
    assertThat(seen.out()).contains("purged: 1").contains("peers holding back: 1");
    assertThat(seen.err()).contains("kept for: peer " + storeId(run("store", "peers", "--store", peer).out()));
    assertThat(get(server, "c", "early", true).code()).isEqualTo(1);
    assertThat(get(server, "c", "late", true).out()).contains("\"kind\" : \"tombstone\"");

    // 5. skewed clocks: a server 60 days slow stamps its delete 60 days in the past; the laptop
    // that synced it knows the server's clock and does not collect it at 30 days
    forgetAllPeersOfTheServer();
    String skewed = laptop("skewed");
    setServerClock(System.currentTimeMillis() - Duration.ofDays(60).toMillis());
    put(server, "d", "r", "v1\n");
    assertThat(sync(skewed, "d").code()).isZero();
    advanceServer(Duration.ofSeconds(1));
    delete(server, "d", "r");
    assertThat(sync(skewed, "d").code()).isZero();
    assertThat(run("store", "peers", "--store", skewed).out()).contains("clock -");
    Run skew = run("store", "collect", "--store", skewed, "--older-than", "30d", "--force");
    assertThat(skew.code()).as(skew.err()).isZero();
    assertThat(skew.out()).contains("purged: 0").contains("skewed: 1");
    assertThat(skew.err()).contains("skewed: d/c/r: younger than the horizon if stamped by peer");
    assertThat(get(skewed, "d", "r", true).out()).contains("\"kind\" : \"tombstone\"");
  }
}
