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
}
