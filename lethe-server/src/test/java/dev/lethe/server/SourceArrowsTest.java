package dev.lethe.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The arrows of docs/design/0215-one-http-edge-and-composition-root.md §4 as the source names them.
 * {@link ServerLayoutTest} reads the compiled classes, where javac has inlined every compile-time
 * constant (a config key named in a message): this test reads the text, where those arrows show.
 */
class SourceArrowsTest {
  private static final Path ROOT = Path.of("src/main/java/dev/lethe/server");
  private static final Pattern NAMED = Pattern.compile("dev\\.lethe\\.server\\.([a-z]\\w*)\\.");

  @Test
  void thePackagesOfTheServerSourceHaveNoCycle() {
    Map<String, Set<String>> arrows = arrows();
    assertThat(arrows).containsKeys("config", "http", "store");
    List<String> cycles = new ArrayList<>();
    for (String from : arrows.keySet()) {
      for (String to : arrows.get(from)) {
        if (from.compareTo(to) < 0 && reaches(arrows, to, from, new TreeSet<>())) {
          cycles.add(from + " <-> " + to);
        }
      }
    }
    assertThat(cycles).as("package pairs that reach each other; arrows: %s", arrows).isEmpty();
  }

  @Test
  void httpAndStoreNameNoSetting() {
    Map<String, Set<String>> arrows = arrows();
    assertThat(arrows.get("http")).doesNotContain("config");
    assertThat(arrows.get("store")).doesNotContain("config");
  }

  /** Package → the server packages its files name (an import, a qualified name, a Javadoc link). */
  private static Map<String, Set<String>> arrows() {
    Map<String, Set<String>> arrows = new TreeMap<>();
    try (Stream<Path> files = Files.walk(ROOT)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        Path relative = ROOT.relativize(file);
        if (relative.getNameCount() < 2) {
          continue; // the composition root may name anything; nothing names it (ServerLayoutTest)
        }
        String from = relative.getName(0).toString();
        Set<String> to = arrows.computeIfAbsent(from, k -> new TreeSet<>());
        Matcher m = NAMED.matcher(Files.readString(file));
        while (m.find()) {
          if (!m.group(1).equals(from)) {
            to.add(m.group(1));
          }
        }
        // a simple name of a class in another package needs an import, which the pattern saw
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return arrows;
  }

  private static boolean reaches(Map<String, Set<String>> arrows, String from, String target, Set<String> seen) {
    if (from.equals(target)) {
      return true;
    }
    if (!seen.add(from)) {
      return false;
    }
    for (String next : arrows.getOrDefault(from, Set.of())) {
      if (reaches(arrows, next, target, seen)) {
        return true;
      }
    }
    return false;
  }
}
