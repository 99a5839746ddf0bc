package dev.lethe.catalog.location;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LocationPathTest {
  @Test
  void everySpellingOfALocalPathIsOneLocation() {
    LocationPath expected = LocationPath.parse("/wh/ns/t");
    for (String s : List.of("/wh/ns/t", "file:/wh/ns/t", "file:///wh/ns/t", "file://localhost/wh/ns/t",
        "FILE:/wh/ns/t", "file://LOCALHOST/wh/ns/t", "/wh//ns/t/", "//wh/ns///t//", "file:////wh/ns/t")) {
      assertThat(LocationPath.parse(s)).as(s).isEqualTo(expected);
    }
    assertThat(expected.toString()).isEqualTo("/wh/ns/t");
    assertThat(expected.scheme()).isEqualTo("file");
  }

  @Test
  void s3AliasesAreOneBucketNamespace() {
    assertThat(LocationPath.parse("s3a://b/wh/t/")).isEqualTo(LocationPath.parse("s3://b/wh/t"));
    assertThat(LocationPath.parse("S3N://b/wh/t")).isEqualTo(LocationPath.parse("s3://b/wh/t"));
    assertThat(LocationPath.parse("s3://b").toString()).isEqualTo("s3://b");
    assertThat(LocationPath.parse("s3://b/").isRoot()).isTrue();
    assertThat(LocationPath.parse("s3://b/x").toString()).isEqualTo("s3://b/x");
    assertThat(LocationPath.parse("s3://b/x")).isNotEqualTo(LocationPath.parse("s3://c/x"));
    assertThat(LocationPath.parse("gs://b/x").toString()).isEqualTo("gs://b/x");
  }

  @Test
  void queriesFragmentsDotSegmentsAndForeignAuthoritiesAreRefused() {
    assertRefused("file:/etc/passwd?", "'?'");
    assertRefused("/wh/t#", "'#'");
    assertRefused("s3://b/k?versionId=1", "'?'");
    assertRefused("/wh/t/../../etc", "'..'");
    assertRefused("/wh/./t", "'.'");
    assertRefused("file://otherhost/wh/t", "not this machine");
    assertRefused("t", "relative");
    assertRefused("wh/t", "relative");
    assertRefused("file:t", "relative");
    assertRefused("file:", "relative");
    assertRefused("./t", "relative");
    assertRefused("", "empty");
    assertRefused(null, "empty");
    assertRefused("s3:/b/k", "s3://authority");
    assertRefused("s3:///k", "no bucket");
    assertRefused("s3://b/a//c", "empty path segment");
    assertRefused("s3://b@evil/a", "bucket");
    assertRefused("/wh/t\u0000x", "control character");
    assertRefused("/wh/t\nx", "control character");
    assertRefused("/wh\\t", "backslash");
    assertRefused("/wh/\ud800x", "surrogate");
    assertRefused("/" + "x".repeat(LocationPath.MAX_LENGTH), "longer than");
  }

  @Test
  void percentSignsAndSpacesAreLiteral() {
    assertThat(LocationPath.parse("file:/wh/a%20b").path()).isEqualTo("/wh/a%20b");
    assertThat(LocationPath.parse("/wh/a b").path()).isEqualTo("/wh/a b");
    assertThat(LocationPath.parse("/wh/a%20b")).isNotEqualTo(LocationPath.parse("/wh/a b"));
  }

  @Test
  void containmentIsBySegmentNotByStringPrefix() {
    LocationPath t = LocationPath.parse("/wh/t");
    assertThat(t.contains(LocationPath.parse("/wh/t"))).isTrue();
    assertThat(t.contains(LocationPath.parse("file:///wh/t/data/f.parquet"))).isTrue();
    assertThat(t.contains(LocationPath.parse("/wh/t2/data/f.parquet"))).isFalse();
    assertThat(t.contains(LocationPath.parse("/wh"))).isFalse();
    assertThat(t.overlaps(LocationPath.parse("/wh"))).isTrue();
    assertThat(LocationPath.parse("/").contains(t)).isTrue();
    assertThat(LocationPath.parse("s3://b").contains(LocationPath.parse("s3a://b/x"))).isTrue();
    assertThat(LocationPath.parse("s3://b/wh").contains(LocationPath.parse("/wh/x"))).isFalse();
  }

  @Test
  void parentsAncestorsAndChildren() {
    LocationPath t = LocationPath.parse("/wh/t");
    assertThat(t.selfAndAncestors()).extracting(LocationPath::toString).containsExactly("/", "/wh", "/wh/t");
    assertThat(LocationPath.parse("s3://b/wh").selfAndAncestors()).extracting(LocationPath::toString)
        .containsExactly("s3://b", "s3://b/wh");
    assertThat(t.resolve("metadata").toString()).isEqualTo("/wh/t/metadata");
    assertThat(LocationPath.parse("/").resolve("x").toString()).isEqualTo("/x");
    assertThatThrownBy(() -> t.resolve("..")).isInstanceOf(InvalidLocationException.class);
    assertThatThrownBy(() -> t.resolve("a/b")).isInstanceOf(InvalidLocationException.class);
  }

  /**
   * Randomized, seeded: a location built from segments, spelled in random legal ways, parses to
   * one value; with a random poison (dot segment, query, fragment, foreign host) inserted it is
   * refused; and {@code contains} agrees with the segment-prefix oracle.
   */
  @Test
  void randomSpellingsNormaliseAndContainmentMatchesTheSegmentOracle() {
    long seed = Long.getLong("lethe.test.seed", System.nanoTime());
    Random random = new Random(seed);
    for (int round = 0; round < 20_000; round++) {
      List<String> segs = randomSegments(random);
      String canonical = "/" + String.join("/", segs);
      String spelled = spellLocal(random, segs);
      LocationPath parsed = LocationPath.parse(spelled);
      assertThat(parsed.toString()).as("seed %d: %s", seed, spelled).isEqualTo(segs.isEmpty() ? "/" : canonical);

      String poisoned = poison(random, spelled);
      assertThat(LocationPath.tryParse(poisoned)).as("seed %d: %s", seed, poisoned).isEmpty();

      List<String> other = random.nextBoolean() ? randomSegments(random) : mutate(random, segs);
      LocationPath o = LocationPath.parse(spellLocal(random, other));
      boolean oracle = other.size() >= segs.size() && other.subList(0, segs.size()).equals(segs);
      assertThat(parsed.contains(o)).as("seed %d: %s contains %s", seed, segs, other).isEqualTo(oracle);

      String bucket = random.nextBoolean() ? "b" : "c";
      LocationPath s3 = LocationPath.parse(List.of("s3", "s3a", "s3n").get(random.nextInt(3)) + "://b/" + String.join("/", segs)
          + (!segs.isEmpty() && random.nextBoolean() ? "/" : ""));
      LocationPath s3o = LocationPath.parse("s3://" + bucket + "/" + String.join("/", other));
      assertThat(s3.contains(s3o)).as("seed %d", seed).isEqualTo(oracle && bucket.equals("b"));
      assertThat(s3.contains(o)).isFalse();
    }
  }

  private static List<String> randomSegments(Random r) {
    String[] alphabet = {"wh", "t", "data", "metadata", "a", "a b", "x%20y", "t-1", "é", "..a", ".a", "a.", "…", "t2"};
    int n = r.nextInt(5);
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(alphabet[r.nextInt(alphabet.length)]);
    }
    return out;
  }

  private static List<String> mutate(Random r, List<String> segs) {
    List<String> out = new ArrayList<>(segs);
    switch (r.nextInt(3)) {
      case 0 -> out.add("child");
      case 1 -> {
        if (!out.isEmpty()) {
          out.remove(out.size() - 1);
        }
      }
      default -> {
        if (!out.isEmpty()) {
          out.set(out.size() - 1, out.get(out.size() - 1) + "x");
        }
      }
    }
    return out;
  }

  private static String spellLocal(Random r, List<String> segs) {
    String prefix = List.of("", "file:", "file://", "file://localhost", "file://LocalHost").get(r.nextInt(5));
    StringBuilder sb = new StringBuilder(prefix);
    boolean first = true;
    for (String s : segs) {
      // after a bare "file:" a leading "//" would start an authority (file://host/…), another file
      boolean doubled = r.nextInt(4) == 0 && !(first && prefix.equals("file:"));
      sb.append(doubled ? "//" : "/").append(s);
      first = false;
    }
    if (segs.isEmpty() || r.nextBoolean()) {
      sb.append('/');
    }
    return sb.toString();
  }

  private static String poison(Random r, String spelled) {
    int at = spelled.lastIndexOf('/') + 1;
    return switch (r.nextInt(7)) {
      case 0 -> "file://evil" + LocationPath.parse(spelled).path();
      case 1 -> spelled + (spelled.endsWith("/") ? ".." : "/..");
      case 2 -> spelled + (spelled.endsWith("/") ? "." : "/.");
      default -> spelled.substring(0, at) + List.of("../", "./", "?", "#", "\u0000").get(r.nextInt(5)) + spelled.substring(at);
    };
  }

  private static void assertRefused(String location, String reason) {
    assertThatThrownBy(() -> LocationPath.parse(location))
        .as(location)
        .isInstanceOf(InvalidLocationException.class)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(reason);
  }
}
