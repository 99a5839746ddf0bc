package dev.lethe.store.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Guards every module's test sources against sleeping to wait for a condition: tests wait with
 * Awaitility ({@code until}, {@code during}, {@code pollDelay}); see docs/design/0220-library-plumbing.md
 * §Tests wait with Awaitility. A sleep may stay only where the stall itself is under test, in the
 * allow-list below with its reason.
 */
class NoSleepInTestsTest {
  /** A sleep call in Java source, on {@code Thread} or on a {@code TimeUnit} unit. */
  static final Pattern SLEEP = Pattern.compile("\\bThread\\s*\\.\\s*sleep\\s*\\(|\\bTimeUnit\\s*\\.\\s*[A-Z]+\\s*\\.\\s*sleep\\s*\\(");

  /** Repository-relative path → why the sleep there is the thing under test, not a wait. */
  static final Map<String, String> ALLOWED = Map.of(
      "lethe-it/src/test/java/dev/lethe/it/CountingFileIO.java",
      "a slow FileIO inside the server process: the seeded delete delay is the stall under test",
      "lethe-store-fs/src/test/java/dev/lethe/store/fs/FsStallingWriter.java",
      "a writer process that must stall between temp file and rename until it is killed");

  @Test
  void noTestSourceSleepsOutsideTheAllowList() throws IOException {
    Path root = repositoryRoot();
    Map<String, Boolean> sleeping = new TreeMap<>();
    try (Stream<Path> modules = Files.list(root)) {
      for (Path testJava : modules.map(m -> m.resolve("src/test/java")).filter(Files::isDirectory).toList()) {
        try (Stream<Path> files = Files.walk(testJava)) {
          files.filter(f -> f.toString().endsWith(".java"))
              .forEach(f -> sleeping.put(root.relativize(f).toString().replace('\\', '/'), sleeps(read(f))));
        }
      }
    }
    assertThat(sleeping).as("test sources scanned").hasSizeGreaterThan(100);
    List<String> offenders = sleeping.entrySet().stream()
        .filter(e -> e.getValue() && !ALLOWED.containsKey(e.getKey())).map(Map.Entry::getKey).toList();
    assertThat(offenders).as("test sources that sleep: wait with Awaitility instead").isEmpty();
    assertThat(ALLOWED.keySet()).as("allow-listed files that still sleep (drop the stale entries)")
        .allMatch(f -> sleeping.getOrDefault(f, false));
  }

  @Test
  void theScanSeesEachSpellingOfASleepAndNothingElse() {
    String sleep = "sleep"; // split, so that this file does not match its own scan
    assertThat(sleeps("Thread." + sleep + "(10);")).isTrue();
    assertThat(sleeps("java.lang.Thread . " + sleep + " (Duration.ofMillis(5));")).isTrue();
    assertThat(sleeps("TimeUnit.MILLISECONDS." + sleep + "(5);")).isTrue();
    assertThat(sleeps("await().pollDelay(Duration.ofMillis(200)).until(() -> true);")).isFalse();
    assertThat(sleeps("ThreadSleeper.sleepy(); thread.sleeping = 1;")).isFalse();
  }

  static boolean sleeps(String source) {
    return SLEEP.matcher(source).find();
  }

  private static String read(Path f) {
    try {
      return Files.readString(f);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The reactor root: the nearest directory upwards whose pom.xml lists modules. */
  private static Path repositoryRoot() throws IOException {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path pom = dir.resolve("pom.xml");
      if (Files.isRegularFile(pom) && Files.readString(pom).contains("<module>lethe-store-core</module>")) {
        return dir;
      }
    }
    throw new IllegalStateException("no reactor pom.xml above " + Path.of("").toAbsolutePath());
  }
}
