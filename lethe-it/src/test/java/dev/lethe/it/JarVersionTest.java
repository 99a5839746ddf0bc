package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The packaged jar (what {@code bin/lethe} runs) reports its version: {@code lethe --version} printed
 * {@code lethe dev}, the answer meant for a run from classes, because the shaded manifest carried no
 * {@code Implementation-Version}.
 */
class JarVersionTest {

  @Test
  void theJarPrintsItsVersion() throws Exception {
    String jar = System.getProperty("lethe.it.jar");
    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", jar,
        "--version").redirectErrorStream(true).start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(p.exitValue()).isZero();
    assertThat(out).matches("lethe \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?");
  }
}
