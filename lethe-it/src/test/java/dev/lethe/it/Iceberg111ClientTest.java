package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.Test;

/**
 * The real iceberg-java 1.11 {@code RESTCatalog}, which encodes a space in a path segment as
 * {@code +} (and a plus as {@code %2B}), against a real {@code lethe server}: it runs in a child JVM
 * (src/test/client111/Iceberg111Client.java, class path {@code lethe.it.iceberg-client111}, filled by
 * maven-dependency-plugin) because its jars cannot share a class path with 1.12. Every 1.11 call must
 * succeed and the 1.12 client of this JVM must see the same names (docs/design/0400-strict-request-input.md).
 */
class Iceberg111ClientTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<List<List<String>>> LIST_OF_LISTS = new TypeReference<>() {};
  private static final Namespace MY_NS = Namespace.of("my ns");
  private static final Namespace A_PLUS_B = Namespace.of("a+b");
  private static final Namespace NESTED = Namespace.of("a+b", "c d");

  @Test
  void theIceberg111ClientCreatesListsLoadsAndDropsNamesWithSpacesAndPlusesThat112Sees() throws Exception {
    try (ServerFixture server = ServerFixture.start("client111", Map.of())) {
      assertThat(run111(server, "create")).containsExactly(
          "client=1.11.0",
          "exists [my ns]=true", "owner [my ns]=my ns",
          "exists [a+b]=true", "owner [a+b]=a+b",
          "exists [a+b, c d]=true", "owner [a+b, c d]=a+b/c d",
          "load [my ns].my table=id", "load [a+b].x+y z=id", "load [a+b, c d].t+1 2=id",
          "namespaces=[[a+b], [my ns]]",
          "namespaces [a+b]=[[a+b, c d]]",
          "tables [my ns]=[[my ns].my table]",
          "tables [a+b]=[[a+b].x+y z]",
          "tables [a+b, c d]=[[a+b, c d].t+1 2]");

      try (RESTCatalog client112 = server.client(null)) {
        assertThat(client112.listNamespaces()).containsExactlyInAnyOrder(MY_NS, A_PLUS_B);
        assertThat(client112.listNamespaces(A_PLUS_B)).containsExactly(NESTED);
        assertThat(client112.loadNamespaceMetadata(MY_NS)).containsEntry("owner", "my ns");
        assertThat(client112.loadNamespaceMetadata(A_PLUS_B)).containsEntry("owner", "a+b");
        assertThat(client112.loadNamespaceMetadata(NESTED)).containsEntry("owner", "a+b/c d");
        assertThat(client112.listTables(MY_NS)).containsExactly(TableIdentifier.of(MY_NS, "my table"));
        assertThat(client112.listTables(A_PLUS_B)).containsExactly(TableIdentifier.of(A_PLUS_B, "x+y z"));
        assertThat(client112.listTables(NESTED)).containsExactly(TableIdentifier.of(NESTED, "t+1 2"));
        assertThat(client112.loadTable(TableIdentifier.of(NESTED, "t+1 2")).schema().columns()).hasSize(1);
        assertThat(client112.namespaceExists(Namespace.of("my+ns"))).isFalse();
        assertThat(client112.namespaceExists(Namespace.of("a b"))).isFalse();
      }

      assertThat(run111(server, "drop")).containsExactly(
          "client=1.11.0",
          "drop [my ns].my table=true", "drop [a+b].x+y z=true", "drop [a+b, c d].t+1 2=true",
          "drop [a+b, c d]=true", "drop [a+b]=true", "drop [my ns]=true",
          "namespaces=[]");

      try (RESTCatalog client112 = server.client(null)) {
        assertThat(client112.listNamespaces()).isEmpty();
      }
    }
  }

  /**
   * Seeded: random names from characters that URL encodings treat specially ({@code + % space}, hex
   * digits, reserved and non-ASCII characters) go through the 1.11 client; the oracle is the
   * generated set itself, as listed by the 1.11 client and by the 1.12 client. Replay with
   * {@code -Dlethe.it.client111.seed=N}.
   */
  @Test
  void randomNamesRoundTripThroughThe111ClientAndMatchThe112View() throws Exception {
    long seed = Long.getLong("lethe.it.client111.seed", new Random().nextLong());
    System.out.println("Iceberg111ClientTest seed=" + seed + " (replay: -Dlethe.it.client111.seed=" + seed + ")");
    Random random = new Random(seed);
    Set<String> tops = new HashSet<>();
    List<List<String>> triples = new ArrayList<>();
    while (triples.size() < 4) {
      // every top-level name holds a space, the character 1.11 sends as '+'
      // at a code point boundary: a space between the two halves of a surrogate pair would make
      // the name unpaired surrogates, which no client can send (the 1.11 client sends '?' instead)
      String name = randomName(random);
      int at = name.offsetByCodePoints(0, random.nextInt(name.codePointCount(0, name.length()) + 1));
      String top = name.substring(0, at) + ' ' + name.substring(at);
      if (tops.add(top)) {
        triples.add(List.of(top, randomName(random), randomName(random)));
      }
    }
    Set<List<String>> namespaces = new HashSet<>();
    Set<List<String>> tables = new HashSet<>();
    for (List<String> t : triples) {
      namespaces.add(List.of(t.get(0)));
      namespaces.add(List.of(t.get(0), t.get(1)));
      tables.add(List.of(t.get(0), t.get(2)));
      tables.add(List.of(t.get(0), t.get(1), t.get(2)));
    }
    try (ServerFixture server = ServerFixture.start("client111-random", Map.of())) {
      Path file = server.dataDir.resolve("names.json");
      JSON.writeValue(file.toFile(), triples);
      List<String> out = run111(server, "names-create", file.toString());
      assertThat(out).as("seed %d", seed).hasSize(1);
      JsonNode seen111 = JSON.readTree(out.get(0));
      assertThat(JSON.convertValue(seen111.get("namespaces"), LIST_OF_LISTS)).as("seed %d: 1.11 namespaces", seed)
          .containsExactlyInAnyOrderElementsOf(namespaces);
      assertThat(JSON.convertValue(seen111.get("tables"), LIST_OF_LISTS)).as("seed %d: 1.11 tables", seed)
          .containsExactlyInAnyOrderElementsOf(tables);

      List<List<String>> seenNamespaces = new ArrayList<>();
      List<List<String>> seenTables = new ArrayList<>();
      try (RESTCatalog client112 = server.client(null)) {
        for (Namespace top : client112.listNamespaces()) {
          List<Namespace> all = new ArrayList<>(List.of(top));
          all.addAll(client112.listNamespaces(top));
          for (Namespace ns : all) {
            seenNamespaces.add(List.of(ns.levels()));
            for (TableIdentifier id : client112.listTables(ns)) {
              List<String> row = new ArrayList<>(List.of(id.namespace().levels()));
              row.add(id.name());
              seenTables.add(row);
              assertThat(client112.loadTable(id).schema().columns()).hasSize(1);
            }
          }
        }
      }
      assertThat(seenNamespaces).as("seed %d: 1.12 namespaces", seed).containsExactlyInAnyOrderElementsOf(namespaces);
      assertThat(seenTables).as("seed %d: 1.12 tables", seed).containsExactlyInAnyOrderElementsOf(tables);

      assertThat(run111(server, "names-drop", file.toString())).as("seed %d", seed).containsExactly("left=[]");
      try (RESTCatalog client112 = server.client(null)) {
        assertThat(client112.listNamespaces()).as("seed %d", seed).isEmpty();
      }
    }
  }

  /**
   * 1 to 6 characters, each a space, plus, percent, hex digit, reserved or non-ASCII character (one
   * outside the BMP). Names made only of dots are skipped: {@code .} and {@code ..} are path
   * segments HTTP clients resolve, whatever the server does. {@code ?} and {@code #} are left out:
   * the default location derived from such a name is refused with 400 (docs/catalog.md "Allowed
   * locations").
   */
  private static String randomName(Random random) {
    String[] alphabet = {" ", "+", "%", "2", "0", "B", "b", "a", "Z", ".", "-", "_", "~", "&", "=",
        ":", "@", "*", "'", "!", "$", ",", ";", "é", "€", "\uD83D\uDE00"};
    while (true) {
      StringBuilder name = new StringBuilder();
      int length = 1 + random.nextInt(6);
      for (int i = 0; i < length; i++) {
        name.append(alphabet[random.nextInt(alphabet.length)]);
      }
      if (!name.toString().matches("\\.+")) {
        return name.toString();
      }
    }
  }

  /** Runs Iceberg111Client in a child JVM (up to 60 s) and returns its stdout lines; fails on a non-zero exit. */
  private static List<String> run111(ServerFixture server, String mode, String... args) throws Exception {
    String jars = System.getProperty("lethe.it.iceberg-client111", "target/iceberg-client111");
    assertThat(Path.of(jars, "iceberg-core-1.11.0.jar"))
        .as("iceberg-java 1.11 jars (maven-dependency-plugin execution iceberg-client111)").isRegularFile();
    Path source = Path.of("src/test/client111/Iceberg111Client.java").toAbsolutePath();
    Path out = server.dataDir.resolve("client111-" + mode + ".out");
    Path err = server.dataDir.resolve("client111-" + mode + ".err");
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", jars + "/*", source.toString(), server.process.icebergUri(), mode));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command)
        .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("iceberg 1.11 client (" + mode + ") did not finish in 60 s");
    }
    assertThat(p.exitValue()).as("iceberg 1.11 client (%s) exit code; stdout:%n%s%nstderr:%n%s%nserver log:%n%s",
        mode, Files.readString(out), Files.readString(err), server.process.log()).isZero();
    return Files.readAllLines(out);
  }
}
