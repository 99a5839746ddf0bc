package dev.lethe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A store database the server cannot open stops {@code lethe server} with one line that says why, as
 * {@code lethe store} does for the same URL. Before, the line ended at the URL:
 * {@code lethe server: cannot start: Cannot open store jdbc:postgresql://…} and nothing more.
 */
class ServerStartFailureTest {
  @TempDir Path dir;

  @Test
  void aStoreDatabaseThatCannotBeOpenedIsOneLineWithTheCause() throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    String url = "jdbc:postgresql://127.0.0.1:" + closed + "/lethe?user=lethe&password=s3cret";
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = LetheCommand.commandLine();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));

    int code = cl.execute("server", "--port", "0", "--data-dir", dir.toString(), "--store-uri", url);

    assertThat(code).isEqualTo(1);
    assertThat(err.toString().strip().lines()).hasSize(1);
    assertThat(err.toString())
        .startsWith("lethe server: cannot start: Cannot open store jdbc:postgresql://127.0.0.1:" + closed)
        .containsIgnoringCase("refused")
        .doesNotContain("s3cret");
  }
}
