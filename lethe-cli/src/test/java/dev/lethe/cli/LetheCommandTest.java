package dev.lethe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LetheCommandTest {

  @ParameterizedTest
  @ValueSource(strings = {"", "bogus", "server --port abc", "server --port", "store get --namespace", "store --bogus"})
  void usageErrorsAreOneLineOnStderrAndExit2(String argLine) {
    CommandLine cl = LetheCommand.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    String[] args = argLine.isEmpty() ? new String[0] : argLine.split(" ");
    int code = cl.execute(args);
    assertThat(code).isEqualTo(2);
    assertThat(out.toString()).isEmpty();
    assertThat(err.toString().strip().lines()).hasSize(1);
    assertThat(err.toString()).startsWith("lethe");
  }

  /**
   * {@code lethe server} with a catalog or store database URL its driver cannot parse exits 1 with
   * one line that never shows the password (MariaDB's connector quoted it: "Incorrect port value :
   * hunter2@127.0.0.1").
   */
  @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"--jdbc-url", "--store-uri"})
  void aDatabaseUrlTheDriverCannotParseNeverShowsItsPassword(String option) {
    CommandLine cl = LetheCommand.commandLine();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(new StringWriter()));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute("server", "--port", "0", "--data-dir", dir.toString(), option,
        "jdbc:mariadb://root:hunter2@127.0.0.1:3307/x");
    assertThat(code).as(err.toString()).isEqualTo(1);
    assertThat(err.toString()).startsWith("lethe server: cannot start: ").doesNotContain("hunter2");
  }
}
