package dev.lethe.cli.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.cli.LetheCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code lethe store soak} with bad options: exit 2, one stderr line naming the option, and no
 * replica started (the work directory stays empty). The soak itself runs in lethe-it.
 */
class SoakCommandTest {

  @TempDir Path dir;

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "--duration|0s|--duration takes a positive integer",
      "--duration|10x|--duration takes a positive integer",
      "--replicas|0|Invalid --replicas 0: 1 to 9",
      "--replicas|three|--replicas must be an integer, got 'three'",
      "--writers|65|Invalid --writers 65: 1 to 64",
      "--backend|s4|Invalid --backend 's4': expected file, postgresql or s3",
      "--transports|carrier-pigeon|Invalid --transports 'carrier-pigeon': unknown transport 'carrier-pigeon'",
      "--kill-every|-1s|--kill-every takes a positive integer",
      "--keep-serving|3|Invalid --keep-serving 3: 0 to 2 (fewer than --replicas)",
      "--keep-serving|-1|Invalid --keep-serving -1: 0 to 2",
      "--keep-serving|one|--keep-serving must be an integer, got 'one'",
      "--seed|x|--seed must be an integer, got 'x'",
      "--jdbc-url|jdbc:postgresql://db.example.com/x|Invalid --jdbc-url: only --backend postgresql takes one",
      "--s3-endpoint|http://127.0.0.1:9090|Invalid --s3-endpoint: only --backend s3 takes one",
      "--backend|s3|Invalid --s3-endpoint: --backend s3 needs http://127.0.0.1:PORT"})
  void aBadOptionIsAUsageErrorOfOneLineAndStartsNothing(String option, String value, String message) throws Exception {
    List<String> args = new ArrayList<>(List.of("store", "soak", "--work-dir", dir.toString(), option, value));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var cmd = LetheCommand.commandLine();
    cmd.setOut(new PrintWriter(out));
    cmd.setErr(new PrintWriter(err));
    int code = cmd.execute(args.toArray(String[]::new));
    assertThat(code).isEqualTo(2);
    assertThat(err.toString().split("\n")).hasSize(1);
    assertThat(err.toString()).startsWith("lethe store soak: ").contains(message);
    try (var files = Files.list(dir)) {
      assertThat(files).isEmpty();
    }
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {"jdbc:postgresql://db.example.com:5432/test", "file:/tmp/x"})
  void aPostgresqlBackendAwayFromThisMachineIsAUsageError(String url) {
    StringWriter err = new StringWriter();
    var cmd = LetheCommand.commandLine();
    cmd.setErr(new PrintWriter(err));
    int code = cmd.execute("store", "soak", "--work-dir", dir.toString(), "--backend", "postgresql", "--jdbc-url", url);
    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).startsWith("lethe store soak: Invalid --jdbc-url").contains("127.0.0.1");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "http://s3.amazonaws.com|Invalid --s3-endpoint 'http://s3.amazonaws.com': needs http://127.0.0.1:PORT",
      "http://127.0.0.1.example.com:9090|Invalid --s3-endpoint 'http://127.0.0.1.example.com:9090': needs",
      "http://user@127.0.0.1:9090|Invalid --s3-endpoint 'http://user@127.0.0.1:9090': needs",
      "http://127.0.0.1:9090/bucket|Invalid --s3-endpoint 'http://127.0.0.1:9090/bucket': needs",
      "s3://127.0.0.1:9090|Invalid --s3-endpoint 's3://127.0.0.1:9090': needs",
      "127.0.0.1:9090|Invalid --s3-endpoint '127.0.0.1:9090': needs"})
  void anS3BackendAwayFromThisMachineIsAUsageErrorAndStartsNothing(String endpoint, String message) throws Exception {
    StringWriter err = new StringWriter();
    var cmd = LetheCommand.commandLine();
    cmd.setErr(new PrintWriter(err));
    int code = cmd.execute("store", "soak", "--work-dir", dir.toString(), "--backend", "s3", "--s3-endpoint", endpoint);
    assertThat(code).isEqualTo(2);
    assertThat(err.toString().split("\n")).hasSize(1);
    assertThat(err.toString()).startsWith("lethe store soak: ").contains(message);
    try (var files = Files.list(dir)) {
      assertThat(files).isEmpty();
    }
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {"Bucket_1", "ab", "-soak"})
  void aMalformedS3BucketIsAUsageError(String bucket) {
    StringWriter err = new StringWriter();
    var cmd = LetheCommand.commandLine();
    cmd.setErr(new PrintWriter(err));
    int code = cmd.execute("store", "soak", "--work-dir", dir.toString(), "--backend", "s3", "--s3-endpoint",
        "http://127.0.0.1:9090", "--s3-bucket", bucket);
    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).startsWith("lethe store soak: Invalid --s3-bucket '" + bucket + "'");
  }
}
