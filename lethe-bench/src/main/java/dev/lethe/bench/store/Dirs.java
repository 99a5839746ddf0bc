package dev.lethe.bench.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Scratch directories for benchmarks, on the disk under test: {@code -Dlethe.bench.dir} (default
 * {@code target/bench-data} under the working directory).
 */
final class Dirs {

  private Dirs() {}

  /** Creates a fresh directory named after {@code prefix}. */
  static Path fresh(String prefix) throws IOException {
    Path base = Path.of(System.getProperty("lethe.bench.dir", "target/bench-data"));
    Files.createDirectories(base);
    return Files.createTempDirectory(base, prefix);
  }

  /** Removes a scratch directory created by {@link #fresh}. */
  static void remove(Path dir) throws IOException {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }
}
