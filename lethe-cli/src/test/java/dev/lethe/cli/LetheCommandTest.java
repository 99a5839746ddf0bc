package dev.lethe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LetheCommandTest {

  @ParameterizedTest
  @ValueSource(strings = {"", "bogus", "server --port abc", "server --port", "store get --namespace", "store --bogus",
      "store", "catalog", "catalog --bogus"})
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
    // one hint, not "try 'lethe catalog --help' (try 'lethe catalog --help')"
    assertThat(err.toString().split("try '", -1)).as(err.toString()).hasSizeLessThanOrEqualTo(2);
  }

  @org.junit.jupiter.api.Test
  void everyCommandsVersionIsTheVersionOfLethe() {
    java.util.List<String> silent = new java.util.ArrayList<>();
    java.util.Deque<CommandLine> todo = new java.util.ArrayDeque<>(java.util.List.of(LetheCommand.commandLine()));
    String expected = null;
    while (!todo.isEmpty()) {
      CommandLine c = todo.pop();
      todo.addAll(c.getSubcommands().values());
      if (!c.getCommandSpec().mixinStandardHelpOptions()) {
        continue;
      }
      java.util.List<String> path = new java.util.ArrayList<>();
      for (CommandLine p = c; p.getParent() != null; p = p.getParent()) {
        path.add(0, p.getCommandName());
      }
      path.add("--version");
      CommandLine root = LetheCommand.commandLine();
      StringWriter out = new StringWriter();
      root.setOut(new PrintWriter(out));
      root.setErr(new PrintWriter(new StringWriter()));
      assertThat(root.execute(path.toArray(new String[0]))).as(String.join(" ", path)).isZero();
      String printed = out.toString().strip();
      if (expected == null && path.size() == 1) {
        expected = printed;
      }
      if (!printed.startsWith("lethe ")) {
        silent.add(String.join(" ", path) + " -> '" + printed + "'");
      }
    }
    assertThat(silent).as("commands whose --version does not print lethe's version").isEmpty();
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
