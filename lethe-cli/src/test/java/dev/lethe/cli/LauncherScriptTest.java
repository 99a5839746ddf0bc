package dev.lethe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code bin/lethe}, run from a copy of the repository root whose jar is missing, with a stand-in
 * {@code mvn} first on the PATH that prints Maven's per-module lines: the launcher says the first
 * build takes minutes, prints one progress line per module, and on a failed build prints the log
 * and exits 1 without running the jar.
 */
class LauncherScriptTest {
  @TempDir Path root;

  @ParameterizedTest
  @ValueSource(ints = {0, 1})
  void aBuildShowsOneLinePerModuleAndAFailedOneItsLog(int mavenExit) throws Exception {
    Files.createDirectories(root.resolve("bin"));
    Files.copy(Path.of("..", "bin", "lethe"), root.resolve("bin/lethe"));
    Path fake = Files.createDirectories(root.resolve("fakebin")).resolve("mvn");
    Files.writeString(fake, "#!/usr/bin/env bash\n"
        + "echo '[INFO] Scanning for projects...'\n"
        + "echo '[INFO] Building Lethe 0.1.0-SNAPSHOT                                   [1/3]'\n"
        + "echo '[INFO] Building lethe-store-core 0.1.0-SNAPSHOT                        [2/3]'\n"
        + "echo '[INFO] Building lethe-cli 0.1.0-SNAPSHOT                               [3/3]'\n"
        + "echo '[ERROR] a compile error' >&2\n"
        + "mkdir -p lethe-cli/target && printf 'not a jar' > lethe-cli/target/lethe.jar\n"
        + "exit " + mavenExit + "\n");
    Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.setPosixFilePermissions(root.resolve("bin/lethe"), PosixFilePermissions.fromString("rwxr-xr-x"));

    ProcessBuilder pb = new ProcessBuilder("bash", root.resolve("bin/lethe").toString(), "--version").directory(root.toFile());
    pb.environment().put("PATH", root.resolve("fakebin") + ":" + System.getenv("PATH"));
    pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
    Process p = pb.start();
    String stderr = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();

    assertThat(stderr).contains("takes a few minutes");
    assertThat(stderr).contains("lethe: module lethe-store-core [2/3]\n").contains("lethe: module lethe-cli [3/3]\n");
    assertThat(p.exitValue()).isEqualTo(1); // the stand-in jar does not run either way
    if (mavenExit == 0) {
      assertThat(stderr).doesNotContain("build failed").contains("Invalid or corrupt jarfile");
    } else {
      assertThat(stderr).contains("[ERROR] a compile error").contains("lethe: build failed")
          .doesNotContain("corrupt jarfile");
    }
  }
}
