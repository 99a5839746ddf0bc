package dev.lethe.server.badinput;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bad input over real HTTP on H2, PostgreSQL and MariaDB: each refusal is a 400 in the route's JSON
 * error shape naming the problem, and the database rows and warehouse files are exactly as before
 * (docs/design/0400-strict-request-input.md, 0401-name-and-column-limits.md, 0402-exact-name-comparison.md).
 */
class BadInputRoutesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NS = "/iceberg/v1/main/namespaces";
  private static final String TABLE = "{\"name\":%s,\"schema\":{\"type\":\"struct\",\"schema-id\":0,"
      + "\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]}}";

  @TempDir Path dir;
  private BackendServer s;

  private BackendServer start(String backend) throws Exception {
    s = new BackendServer(backend, dir);
    HttpResponse<String> db = s.send("POST", NS, "{\"namespace\":[\"db\"]}");
    assertThat(db.statusCode()).as(db.body()).isEqualTo(200);
    return s;
  }

  @AfterEach
  void stop() throws Exception {
    if (s != null) {
      s.close();
    }
  }

  private static String message(HttpResponse<String> r, int status) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
    JsonNode error = JSON.readTree(r.body()).get("error");
    assertThat(error.get("code").asInt()).isEqualTo(status);
    return error.get("message").asText();
  }

  private static String table(String nameJson) {
    return String.format(TABLE, nameJson);
  }

  private static String quote(String s) throws Exception {
    return JSON.writeValueAsString(s);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void duplicateKeysAndTrailingTokensAre400EverywhereJsonIsRead(String backend) throws Exception {
    start(backend);
    s.send("POST", NS + "/db/tables", table("\"t\""));
    String before = s.snapshot();
    assertThat(message(s.send("POST", NS, "{\"namespace\":[\"a\"],\"namespace\":[\"b\"]}"), 400))
        .contains("Duplicate field 'namespace'");
    assertThat(message(s.send("POST", NS, "{\"namespace\":[\"a\"]} {\"namespace\":[\"b\"]}"), 400))
        .contains("trailing token");
    assertThat(message(s.send("POST", NS, "{\"namespace\":[\"a\"]}garbage"), 400)).contains("malformed JSON");
    assertThat(message(s.send("POST", NS, "{\"namespace\":[\"a\"],\"properties\":{\"k\":\"1\",\"k\":\"2\"}}"), 400))
        .contains("Duplicate field 'k'");
    assertThat(message(s.send("POST", NS + "/db/tables", table("\"u\"").replace("\"schema-id\":0,", "\"schema-id\":0,\"schema-id\":1,")), 400))
        .contains("Duplicate field 'schema-id'");
    assertThat(message(s.send("POST", NS + "/db/properties", "{\"updates\":{\"a\":\"1\"},\"updates\":{\"b\":\"2\"}}"), 400))
        .contains("Duplicate field 'updates'");
    assertThat(message(s.send("POST", NS + "/db/tables/t",
        "{\"requirements\":[],\"updates\":[{\"action\":\"set-properties\",\"updates\":{\"x\":\"1\"}}]}[]"), 400))
        .contains("trailing token");
    assertThat(message(s.send("POST", "/iceberg/v1/main/tables/rename",
        "{\"source\":{\"namespace\":[\"db\"],\"name\":\"t\"},\"destination\":{\"namespace\":[\"db\"],\"name\":\"x\"},"
            + "\"destination\":{\"namespace\":[\"db\"],\"name\":\"y\"}}"), 400))
        .contains("Duplicate field 'destination'");
    assertThat(s.snapshot()).isEqualTo(before);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aNullInAStringMapIs400OnEveryRouteThatTakesOne(String backend) throws Exception {
    start(backend);
    s.send("POST", NS + "/db/tables", table("\"t\""));
    s.send("POST", NS + "/db/views", RandomRequestsPropertyTest.view("\"v\""));
    String before = s.snapshot();
    String nullValue = "{\"k\":null}";
    List<String[]> requests = List.of(
        new String[] {NS, "{\"namespace\":[\"a\"],\"properties\":" + nullValue + "}"},
        new String[] {NS + "/db/properties", "{\"updates\":" + nullValue + "}"},
        new String[] {NS + "/db/properties", "{\"removals\":[null]}"},
        new String[] {NS + "/db/tables", table("\"u\"").replaceFirst("}$", ",\"properties\":" + nullValue + "}")},
        new String[] {NS + "/db/tables/t", "{\"requirements\":[],\"updates\":[{\"action\":\"set-properties\",\"updates\":"
            + nullValue + "}]}"},
        new String[] {NS + "/db/tables/t", "{\"requirements\":[],\"updates\":[{\"action\":\"remove-properties\","
            + "\"removals\":[null]}]}"},
        new String[] {"/iceberg/v1/main/transactions/commit", "{\"table-changes\":[{\"identifier\":{\"namespace\":[\"db\"],"
            + "\"name\":\"t\"},\"requirements\":[],\"updates\":[{\"action\":\"set-properties\",\"updates\":"
            + nullValue + "}]}]}"},
        new String[] {NS + "/db/views", RandomRequestsPropertyTest.view("\"w\"").replace("\"properties\":{}",
            "\"properties\":" + nullValue)},
        new String[] {NS + "/db/views/v", "{\"requirements\":[],\"updates\":[{\"action\":\"set-properties\",\"updates\":"
            + nullValue + "}]}"});
    List<String> accepted = new ArrayList<>();
    for (String[] r : requests) {
      String now = s.snapshot();
      HttpResponse<String> response = s.send("POST", r[0], r[1]);
      if (response.statusCode() != 400 || !s.snapshot().equals(now)) {
        accepted.add(response.statusCode() + " and " + (s.snapshot().equals(now) ? "nothing changed" : "a change")
            + " for POST " + r[0] + " " + r[1] + " -> " + response.body());
      } else {
        assertThat(message(response, 400)).as("POST %s %s", r[0], r[1]).containsIgnoringCase("null");
      }
    }
    assertThat(accepted).isEmpty();
    assertThat(s.snapshot()).isEqualTo(before);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void unpairedSurrogatesAre400InBodiesAndPaths(String backend) throws Exception {
    start(backend);
    String before = s.snapshot();
    assertThat(message(s.send("POST", NS, "{\"namespace\":[\"a\\ud800b\"]}"), 400)).contains("unpaired surrogate U+D800");
    assertThat(message(s.send("POST", NS, "{\"namespace\":[\"ok\"],\"properties\":{\"k\\udc00\":\"v\"}}"), 400))
        .containsIgnoringCase("surrogate");
    assertThat(message(s.send("POST", NS + "/db/tables", table("\"a\\ud83db\"")), 400)).contains("unpaired surrogate");
    // a surrogate encoded in UTF-8 (CESU) is not UTF-8
    assertThat(message(s.send("GET", NS + "/a%ED%A0%80b", null), 400)).isNotBlank();
    assertThat(message(s.send("POST", NS + "/db/tables/t%ED%B0%80", "{\"requirements\":[],\"updates\":[]}"), 400))
        .isNotBlank();
    assertThat(s.snapshot()).isEqualTo(before);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void namesAndValuesAtTheColumnLimitsWorkAndOneMoreIs400(String backend) throws Exception {
    start(backend);
    String longest = "\u65e5".repeat(255); // 765 UTF-8 bytes
    HttpResponse<String> created = s.send("POST", NS + "/db/tables", table(quote(longest)));
    assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
    String encoded = URLEncoder.encode(longest, StandardCharsets.UTF_8);
    assertThat(s.send("GET", NS + "/db/tables/" + encoded, null).statusCode()).isEqualTo(200);
    assertThat(s.send("POST", NS + "/db/tables", table(quote("a".repeat(255)))).statusCode()).isEqualTo(200);

    String before = s.snapshot();
    assertThat(message(s.send("POST", NS + "/db/tables", table(quote("a".repeat(256)))), 400))
        .contains("longer than 255 characters");
    assertThat(message(s.send("POST", NS, "{\"namespace\":[\"" + "f".repeat(255) + "\",\"" + "g".repeat(255) + "\",\"h\"]}"), 400))
        .contains("513 characters, over the limit of 512");
    assertThat(message(s.send("POST", NS, "{\"namespace\":[\"big\"],\"properties\":{\"k\":\"" + "x".repeat(1_000_000) + "\"}}"), 400))
        .contains("over the limit of 65535");
    assertThat(message(s.send("POST", NS + "/db/properties", "{\"updates\":{\"k\":\"" + "x".repeat(1_000_000) + "\"}}"), 400))
        .contains("over the limit of 65535");
    String longLocation = s.warehouse.toAbsolutePath() + "/db" + ("/" + "p".repeat(200)).repeat(10);
    assertThat(message(s.send("POST", NS + "/db/tables",
        table("\"far\"").replace("\"schema\":", "\"location\":" + quote(longLocation) + ",\"schema\":")), 400))
        .contains("over the limit of 2048");
    assertThat(s.snapshot()).isEqualTo(before);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void registeringAFileThatIsNotJsonIs400AndWritesNothing(String backend) throws Exception {
    start(backend);
    Path file = s.warehouse.resolve("db/junk/metadata/00000-1.metadata.json");
    Files.createDirectories(file.getParent());
    Files.writeString(file, "not json at all");
    String before = s.snapshot();
    assertThat(message(s.send("POST", NS + "/db/register",
        "{\"name\":\"t\",\"metadata-location\":" + quote(file.toString()) + "}"), 400)).contains("is not JSON");
    assertThat(message(s.send("POST", NS + "/db/register-view",
        "{\"name\":\"v\",\"metadata-location\":" + quote(file.toString()) + "}"), 400)).contains("is not JSON");
    assertThat(s.snapshot()).isEqualTo(before);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aTrailingSpaceMakesAnotherName(String backend) throws Exception {
    start(backend);
    HttpResponse<String> padded = s.send("POST", NS + "/db/tables", table("\"t \""));
    HttpResponse<String> plain = s.send("POST", NS + "/db/tables", table("\"t\""));
    assertThat(padded.statusCode()).as(padded.body()).isEqualTo(200);
    assertThat(plain.statusCode()).as(plain.body()).isEqualTo(200);
    String paddedUuid = JSON.readTree(padded.body()).get("metadata").get("table-uuid").asText();
    String plainUuid = JSON.readTree(plain.body()).get("metadata").get("table-uuid").asText();
    assertThat(paddedUuid).isNotEqualTo(plainUuid);
    assertThat(JSON.readTree(s.send("GET", NS + "/db/tables/t%20", null).body()).get("metadata").get("table-uuid").asText())
        .isEqualTo(paddedUuid);
    assertThat(JSON.readTree(s.send("GET", NS + "/db/tables/t", null).body()).get("metadata").get("table-uuid").asText())
        .isEqualTo(plainUuid);
  }

  /**
   * {@code ?}, {@code #} and {@code \} are valid in names but not in locations
   * (docs/design/0401-name-and-column-limits.md): a table or namespace so named, created without a
   * location, gets a directory with each replaced by {@code _} and a hash suffix, never a 400.
   */
  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void namesWithCharactersNoLocationMayHoldGetADerivedDirectory(String backend) throws Exception {
    start(backend);
    HttpResponse<String> ns = s.send("POST", NS, "{\"namespace\":[\"q?n#s\\\\\"]}");
    assertThat(ns.statusCode()).as(ns.body()).isEqualTo(200);
    HttpResponse<String> plainNs = s.send("POST", NS, "{\"namespace\":[\"q_n_s_\"]}");
    assertThat(plainNs.statusCode()).as(plainNs.body()).isEqualTo(200);
    String nsPath = NS + "/" + URLEncoder.encode("q?n#s\\", StandardCharsets.UTF_8).replace("+", "%20");
    for (String name : List.of("t?1", "t#2", "t\\3", "?#\\")) {
      HttpResponse<String> created = s.send("POST", nsPath + "/tables", table(quote(name)));
      assertThat(created.statusCode()).as(name + ": " + created.body()).isEqualTo(200);
      String location = JSON.readTree(created.body()).get("metadata").get("location").asText();
      String dirs = location.substring(s.warehouse.toAbsolutePath().toString().length());
      assertThat(dirs).as(location).doesNotContain("?", "#", "\\").contains("/q_n_s_~");
      HttpResponse<String> loaded = s.send("GET", nsPath + "/tables/" + URLEncoder.encode(name, StandardCharsets.UTF_8), null);
      assertThat(loaded.statusCode()).as(loaded.body()).isEqualTo(200);
      assertThat(JSON.readTree(loaded.body()).get("metadata").get("location").asText()).isEqualTo(location);
    }
  }

  /**
   * iceberg-java 1.11 encodes path segments with {@code URLEncoder} (a space is {@code +}, a plus
   * is {@code %2B}); its jar cannot share a classpath with 1.12, so its encoding is reproduced with
   * {@code URLEncoder} over raw HTTP here, on every backend. The 1.12 client ({@code %20}) is used
   * as is. The real 1.11 client runs in a child JVM in lethe-it's Iceberg111ClientTest.
   */
  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void pathSegmentsDecodeLikeTheReferenceServerFor111And112Clients(String backend) throws Exception {
    start(backend);
    assertThat(s.send("POST", NS, "{\"namespace\":[\"my ns\"]}").statusCode()).isEqualTo(200);
    assertThat(s.send("POST", NS, "{\"namespace\":[\"a+b\"]}").statusCode()).isEqualTo(200);
    String ns111 = URLEncoder.encode("my ns", StandardCharsets.UTF_8);
    assertThat(ns111).isEqualTo("my+ns");
    assertThat(s.send("GET", NS + "/" + ns111, null).statusCode()).isEqualTo(200);
    HttpResponse<String> created = s.send("POST", NS + "/" + ns111 + "/tables", table("\"my table\""));
    assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
    assertThat(s.send("GET", NS + "/" + ns111 + "/tables/" + URLEncoder.encode("my table", StandardCharsets.UTF_8), null)
        .statusCode()).isEqualTo(200);
    assertThat(s.send("GET", NS + "/" + URLEncoder.encode("a+b", StandardCharsets.UTF_8), null).statusCode()).isEqualTo(200);
    assertThat(s.send("GET", NS + "/a%2Bb", null).statusCode()).isEqualTo(200);
    assertThat(s.send("GET", NS + "/my%20ns", null).statusCode()).isEqualTo(200);

    try (RESTCatalog client = new RESTCatalog()) {
      client.initialize("lethe", Map.of("uri", s.base() + "/iceberg", "warehouse", "main",
          "io-impl", "org.apache.iceberg.inmemory.InMemoryFileIO"));
      assertThat(client.namespaceExists(Namespace.of("my ns"))).isTrue();
      assertThat(client.namespaceExists(Namespace.of("a+b"))).isTrue();
      assertThat(client.listTables(Namespace.of("my ns"))).containsExactly(TableIdentifier.of("my ns", "my table"));
      assertThat(client.loadTable(TableIdentifier.of("my ns", "my table")).schema().columns()).hasSize(1);
      client.createTable(TableIdentifier.of("a+b", "x+y z"),
          new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));
      assertThat(client.tableExists(TableIdentifier.of("a+b", "x+y z"))).isTrue();
    }
    assertThat(s.send("GET", NS + "/a%2Bb/tables/x%2By+z", null).statusCode()).isEqualTo(200);
  }
}
