package dev.lethe.cli.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.cli.LetheCommand;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code lethe store …} with {@code jdbc:} store URIs (an H2 file database). */
class StoreCliJdbcTest {

  record Run(int code, String out, String err) {}

  @TempDir Path dir;

  private Run run(String stdin, String... args) {
    CommandLine cmd = LetheCommand.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cmd.setOut(new PrintWriter(out));
    cmd.setErr(new PrintWriter(err));
    if (stdin != null) {
      ((PutCommand) cmd.getSubcommands().get("store").getSubcommands().get("put").getCommand()).stdin =
          new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8));
    }
    int code = cmd.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  private static String[] args(String sub, String store, String... more) {
    List<String> a = new ArrayList<>(List.of("store", sub, "--store", store));
    a.addAll(List.of(more));
    return a.toArray(String[]::new);
  }

  @Test
  void putGetListDeleteAndSyncWorkOnAJdbcStore() {
    String h2 = "jdbc:h2:file:" + dir.resolve("db");
    Run put = run("hello\n", args("put", h2, "--namespace", "n", "--collection", "c", "--id", "r", "--body-file", "-"));
    assertThat(put.code()).as(put.err()).isZero();
    assertThat(put.out()).startsWith("committed: n/c/r\nrevision: {\"counter\":1,");
    Run get = run(null, args("get", h2, "--namespace", "n", "--collection", "c", "--id", "r"));
    assertThat(get.code()).isZero();
    assertThat(get.out()).contains("\"text\" : \"hello\\n\"");
    assertThat(run(null, args("list", h2)).out()).startsWith("n/c/r\tdocument\t1\t");
    assertThat(run(null, args("delete", h2, "--namespace", "n", "--collection", "c", "--id", "r")).out())
        .isEqualTo("deleted: n/c/r\n");
    assertThat(run(null, args("list", h2)).out()).isEmpty();
    assertThat(run(null, args("list", h2, "--raw")).out()).startsWith("n/c/r\ttombstone\t2\t");
    // the tombstone travels to a file: store, and a second sync has nothing to do
    String fs = "file:" + dir.resolve("fs");
    Run sync = run(null, "store", "sync", "--store", fs, "--peer", h2);
    assertThat(sync.code()).as(sync.err()).isZero();
    assertThat(sync.out()).startsWith("copied: 1\n");
    assertThat(run(null, args("get", fs, "--namespace", "n", "--collection", "c", "--id", "r", "--raw")).out())
        .contains("\"kind\" : \"tombstone\"");
    assertThat(run(null, "store", "sync", "--store", h2, "--peer", fs).out()).startsWith("copied: 0\n");
  }

  @Test
  void anUnsupportedJdbcUrlIsAUsageErrorOfOneLine() {
    Run r = run(null, args("list", "jdbc:sqlite:/tmp/x?password=hunter2"));
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("lethe store list: --store: Cannot open store: unsupported JDBC URL jdbc:sqlite:"
        + " (expected jdbc:h2:, jdbc:postgresql: or jdbc:mariadb:)\n");
  }

  @Test
  void anUnreachableDatabaseIsAnErrorOfOneLineWithoutThePassword() {
    Run r = run(null, args("list", "jdbc:postgresql://127.0.0.1:1/x?user=u&password=hunter2"));
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().lines()).hasSize(1);
    assertThat(r.err()).startsWith("lethe store list: error: Cannot open store jdbc:postgresql://127.0.0.1:1/x?user=u&password=***")
        .doesNotContain("hunter2");
  }
}
