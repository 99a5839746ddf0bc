package dev.lethe.catalog.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link LetheCatalog#stripTrailingSlash} answers as Lethe's own loop did before it used Iceberg's LocationUtil. */
class StripTrailingSlashTest {
  /** The loop LetheCatalog had: strip slashes while more than one character is left. */
  private static String oracle(String s) {
    String r = s;
    while (r.length() > 1 && r.endsWith("/")) {
      r = r.substring(0, r.length() - 1);
    }
    return r;
  }

  @Test
  void examples() {
    assertThat(LetheCatalog.stripTrailingSlash("/")).isEqualTo("/");
    assertThat(LetheCatalog.stripTrailingSlash("///")).isEqualTo("/");
    assertThat(LetheCatalog.stripTrailingSlash("")).isEqualTo("");
    assertThat(LetheCatalog.stripTrailingSlash("s3://bucket/wh//")).isEqualTo("s3://bucket/wh");
    assertThat(LetheCatalog.stripTrailingSlash("s3://")).isEqualTo("s3:");
    assertThat(LetheCatalog.stripTrailingSlash("file:///tmp/wh/")).isEqualTo("file:///tmp/wh");
    assertThat(LetheCatalog.stripTrailingSlash("/tmp/wh")).isEqualTo("/tmp/wh");
  }

  @Test
  void seededRandomLocationsMatchTheOldLoop() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    char[] alphabet = {'/', '/', '/', ':', 's', '3', 'a'};
    for (int i = 0; i < 20_000; i++) {
      StringBuilder b = new StringBuilder();
      for (int n = random.nextInt(9); n > 0; n--) {
        b.append(alphabet[random.nextInt(alphabet.length)]);
      }
      String s = b.toString();
      assertThat(LetheCatalog.stripTrailingSlash(s)).as("seed %d, input \"%s\"", seed, s).isEqualTo(oracle(s));
    }
  }
}
