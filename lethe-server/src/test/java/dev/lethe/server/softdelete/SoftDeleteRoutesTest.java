package dev.lethe.server.softdelete;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.auth.TokenHash;
import dev.lethe.server.config.ConfigKeys;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The soft deletion management routes over real HTTP on a real server (embedded H2, local warehouse). */
class SoftDeleteRoutesTest {
  private static final ObjectMapper JSON = ServerHttp.JSON;
  private static final String TABLE_BODY = ServerHttp.TABLE_BODY;
  private static final String API = "/api/metalakes/default/catalogs/main/schemas/db/tables";
  private static final List<String> FIELDS =
      List.of("name", "entityId", "deletedAt", "retentionExpiresAt", "deletedBy", "purgeRequested", "recoverable", "held", "state");

  @TempDir Path dir;
  private LetheServer server;

  private void start(boolean softDelete, long retentionMs, Path authFile) throws Exception {
    Map<String, String> props = new HashMap<>();
    props.put(ConfigKeys.SOFT_DELETE_ENABLED, String.valueOf(softDelete));
    props.put(ConfigKeys.SOFT_DELETE_RETENTION_MS, String.valueOf(retentionMs));
    props.put(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0"); // jobs stay PENDING: states are stable to assert
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 10, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, authFile, props));
    admin("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}");
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private HttpResponse<String> send(String method, String path, String body, String token) throws Exception {
    return new ServerHttp(server).send(method, path, body, token == null ? Map.of() : Map.of("Authorization", "Bearer " + token));
  }

  private String adminToken;

  private HttpResponse<String> admin(String method, String path, String body) throws Exception {
    return send(method, path, body, adminToken);
  }

  private String createTable(String ns, String name) throws Exception {
    return new ServerHttp(server).createTable(ns, name,
        adminToken == null ? Map.of() : Map.of("Authorization", "Bearer " + adminToken));
  }

  private static JsonNode json(HttpResponse<String> r) throws Exception {
    return JSON.readTree(r.body());
  }

  private static void assertError(HttpResponse<String> r, int code, String type, String messagePart) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(code);
    JsonNode e = json(r);
    assertThat(e.get("code").asInt()).isEqualTo(code);
    assertThat(e.get("type").asText()).isEqualTo(type);
    assertThat(e.get("message").asText()).contains(messagePart);
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  @Test
  void dropListLoadUndropRoundTripWithExactlyTheSafeFields() throws Exception {
    start(true, 86_400_000L, null);
    String metadata = createTable("db", "orders");
    String tableUuid = json(admin("GET", "/iceberg/v1/main/namespaces/db/tables/orders", null)).get("metadata").get("table-uuid").asText();

    assertThat(admin("DELETE", API + "/orders?purgeRequested=true", null).statusCode()).isEqualTo(204);

    HttpResponse<String> list = admin("GET", API + "?deleted=true", null);
    assertThat(list.statusCode()).isEqualTo(200);
    assertThat(fieldNames(json(list))).containsExactly("deleted");
    JsonNode d = json(list).get("deleted").get(0);
    assertThat(fieldNames(d)).containsExactlyElementsOf(FIELDS);
    assertThat(d.get("name").asText()).isEqualTo("orders");
    assertThat(d.get("entityId").isTextual()).isTrue();
    assertThat(d.get("deletedBy").asText()).isEqualTo("anonymous");
    assertThat(d.get("purgeRequested").asBoolean()).isTrue();
    assertThat(d.get("recoverable").asBoolean()).isTrue();
    assertThat(d.get("state").asText()).isEqualTo("DELETED");
    assertThat(d.get("retentionExpiresAt").asLong() - d.get("deletedAt").asLong()).isEqualTo(86_400_000L);
    assertThat(list.body()).doesNotContain(metadata).doesNotContain("metadata").doesNotContain("s3.");
    HttpResponse<String> load = admin("GET", API + "/orders?deleted=true", null);
    assertThat(load.statusCode()).isEqualTo(200);
    assertThat(json(load)).isEqualTo(d);

    HttpResponse<String> undrop = admin("POST", API + "/orders/undrop", null);
    assertThat(undrop.statusCode()).as(undrop.body()).isEqualTo(200);
    assertThat(fieldNames(json(undrop))).containsExactly("name", "namespace", "entityId");
    assertThat(json(undrop).get("entityId").asText()).isEqualTo(d.get("entityId").asText());
    JsonNode back = json(admin("GET", "/iceberg/v1/main/namespaces/db/tables/orders", null));
    assertThat(back.get("metadata-location").asText()).isEqualTo(metadata);
    assertThat(back.get("metadata").get("table-uuid").asText()).isEqualTo(tableUuid);
    assertThat(json(admin("GET", API + "?deleted=true", null)).get("deleted")).isEmpty();
    assertError(admin("POST", API + "/orders/undrop", null), 404, "NoSuchTableException", "is live");
    assertError(admin("GET", API + "/orders?deleted=true", null), 404, "NoSuchTableException", "No retained deletion");
  }

  @Test
  void multiLevelSchemaUsesTheUnitSeparatorAsIcebergRestDoes() throws Exception {
    start(true, 86_400_000L, null);
    admin("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\",\"sub\"]}");
    createTable("db%1Fsub", "t");
    String api = "/api/metalakes/default/catalogs/main/schemas/db%1Fsub/tables";

    assertThat(admin("DELETE", api + "/t", null).statusCode()).isEqualTo(204);
    assertThat(json(admin("GET", api + "?deleted=true", null)).get("deleted").get(0).get("name").asText()).isEqualTo("t");
    assertThat(json(admin("GET", API + "?deleted=true", null)).get("deleted")).isEmpty();
    HttpResponse<String> undrop = admin("POST", api + "/t/undrop", null);
    assertThat(undrop.statusCode()).isEqualTo(200);
    assertThat(json(undrop).get("namespace").toString()).isEqualTo("[\"db\",\"sub\"]");
  }

  @Test
  void retentionZeroIsExpiredAtOnceUndropIs410AndPurgeNowIs200WithoutFiles() throws Exception {
    start(true, 0, null);
    String metadata = createTable("db", "t");
    admin("DELETE", API + "/t", null);

    JsonNode d = json(admin("GET", API + "/t?deleted=true", null));
    assertThat(d.get("recoverable").asBoolean()).isFalse();
    assertThat(d.get("retentionExpiresAt").asLong()).isEqualTo(d.get("deletedAt").asLong());
    assertError(admin("POST", API + "/t/undrop", null), 410, "TableNotRecoverableException", "deadline passed");
    assertThat(json(admin("GET", API + "?deleted=true", null)).get("deleted")).hasSize(1).as("the 410 changed nothing");
  }

  @Test
  void purgeNowEnqueuesOnceAnswers202WithThePurgingRecordThenUndropIs410() throws Exception {
    start(true, 86_400_000L, null);
    String metadata = createTable("db", "t");
    createTable("db", "m");
    admin("DELETE", API + "/t?purgeRequested=true", null);
    admin("DELETE", API + "/m", null);

    HttpResponse<String> purge = admin("POST", API + "/t/purge", null);
    assertThat(purge.statusCode()).as(purge.body()).isEqualTo(202);
    JsonNode p = json(purge);
    assertThat(fieldNames(p)).containsExactlyElementsOf(concat(FIELDS, "purgeJobState"));
    assertThat(p.get("state").asText()).isEqualTo("PURGING");
    assertThat(p.get("purgeJobState").asText()).isEqualTo("PENDING");
    assertThat(p.get("recoverable").asBoolean()).isFalse();
    assertThat(admin("POST", API + "/t/purge", null).statusCode()).as("replayed: same job").isEqualTo(202);
    JsonNode jobs = json(admin("GET", "/api/metalakes/default/catalogs/main/cleanups", null)).get("cleanups");
    assertThat(jobs).hasSize(1);
    assertError(admin("POST", API + "/t/undrop", null), 410, "TableNotRecoverableException", "cleanup job " + jobs.get(0).get("id").asLong());
    HttpResponse<String> create = admin("POST", "/iceberg/v1/main/namespaces/db/tables", String.format(TABLE_BODY, "t"));
    assertThat(create.statusCode()).isEqualTo(409);
    assertThat(Path.of(metadata)).exists();

    HttpResponse<String> metadataOnly = admin("POST", API + "/m/purge", null);
    assertThat(metadataOnly.statusCode()).as(metadataOnly.body()).isEqualTo(200);
    assertThat(json(metadataOnly).get("state").asText()).isEqualTo("PURGING");
    assertThat(json(metadataOnly).has("purgeJobState")).isFalse();
    assertError(admin("GET", API + "/m?deleted=true", null), 404, "NoSuchTableException", "m");
    assertThat(admin("POST", "/iceberg/v1/main/namespaces/db/tables", String.format(TABLE_BODY, "m")).statusCode()).isEqualTo(200);
    assertError(admin("POST", API + "/none/purge", null), 404, "NoSuchTableException", "none");
  }

  private static List<String> concat(List<String> a, String b) {
    List<String> all = new ArrayList<>(a);
    all.add(b);
    return all;
  }

  @Test
  void managementDropWithSoftDeleteOffIsMetadataOnlyOrASynchronousPurge() throws Exception {
    start(false, 86_400_000L, null);
    String kept = createTable("db", "kept");
    String purged = createTable("db", "purged");

    assertThat(admin("DELETE", API + "/kept", null).statusCode()).isEqualTo(204);
    assertThat(admin("DELETE", API + "/purged?purgeRequested=true", null).statusCode()).isEqualTo(204);

    assertThat(Path.of(kept)).exists();
    assertThat(Path.of(purged)).doesNotExist();
    assertThat(json(admin("GET", API + "?deleted=true", null)).get("deleted")).isEmpty();
    assertError(admin("DELETE", API + "/kept", null), 404, "NoSuchTableException", "kept");
  }

  @Test
  void unknownMetalakeCatalogSchemaOrTableAre404WithTheirType() throws Exception {
    start(true, 86_400_000L, null);
    createTable("db", "t");

    assertError(admin("GET", "/api/metalakes/nope/catalogs/main/schemas/db/tables?deleted=true", null), 404,
        "NoSuchMetalakeException", "nope");
    assertError(admin("GET", "/api/metalakes/default/catalogs/nope/schemas/db/tables?deleted=true", null), 404,
        "NoSuchCatalogException", "nope");
    assertError(admin("GET", "/api/metalakes/default/catalogs/main/schemas/nope/tables?deleted=true", null), 404,
        "NoSuchSchemaException", "nope");
    assertError(admin("POST", "/api/metalakes/default/catalogs/main/schemas/nope/tables/t/undrop", null), 404,
        "NoSuchSchemaException", "nope");
    assertError(admin("DELETE", API + "/none", null), 404, "NoSuchTableException", "none");
    assertError(admin("POST", API + "/none/undrop", null), 404, "NoSuchTableException", "none");
    assertError(admin("POST", API + "/t/undrop", null), 404, "NoSuchTableException", "is live");
    assertThat(admin("HEAD", "/iceberg/v1/main/namespaces/db/tables/t", null).statusCode()).isEqualTo(204);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "?deleted=false", "?deleted=yes", "?deleted="})
  void anyDeletedValueOtherThanTrueIs400(String query) throws Exception {
    start(true, 86_400_000L, null);
    createTable("db", "t");
    assertError(admin("GET", API + query, null), 400, "IllegalArgumentException", "only deleted=true is supported");
    assertError(admin("GET", API + "/t" + query, null), 400, "IllegalArgumentException", "only deleted=true is supported");
  }

  @Test
  void dotSegmentsAndBadNamesAre400AndChangeNothing() throws Exception {
    start(true, 86_400_000L, null);
    createTable("db", "t");

    assertError(admin("DELETE", "/api/metalakes/default/catalogs/main/schemas/%2E%2E/tables/t", null), 400,
        "IllegalArgumentException", "relative path segment");
    assertError(admin("DELETE", API + "/%2E%2E", null), 400, "IllegalArgumentException", "relative path segment");
    assertError(admin("POST", API + "/%2E/undrop", null), 400, "IllegalArgumentException", "relative path segment");
    assertError(admin("GET", "/api/metalakes/default/catalogs/main/schemas/db%1F../tables?deleted=true", null), 400,
        "IllegalArgumentException", "relative path segment");
    assertError(admin("DELETE", API + "/t?purgeRequested=maybe", null), 400, "IllegalArgumentException", "purgeRequested");
    assertThat(admin("HEAD", "/iceberg/v1/main/namespaces/db/tables/t", null).statusCode()).isEqualTo(204);
    assertThat(json(admin("GET", API + "?deleted=true", null)).get("deleted")).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"/api/metalakes/default/catalogs/main/schemas/../tables?deleted=true",
      "/api/metalakes/default/catalogs/main/schemas/./tables?deleted=true",
      "/api/metalakes/default/catalogs/main/schemas/db/tables/../undrop",
      "/api/metalakes/default/catalogs/main/schemas/db/tables/t/../../tables?deleted=true",
      "/api/metalakes/default/catalogs/main/schemas/db/tables/..",
      "/api/metalakes/default/catalogs/main/schemas/db/tables/%2e%2e/purge",
      "/api/metalakes/default/catalogs/main/schemas/db%1F%2E/tables/t",
      "/api/metalakes/default/catalogs/../cleanups"})
  void literalOrEncodedDotSegmentsAre400ForEveryMethodEvenWithoutARoute(String path) throws Exception {
    start(true, 86_400_000L, null);
    createTable("db", "t");
    for (String method : List.of("GET", "DELETE", "POST")) {
      assertError(admin(method, path, null), 400, "IllegalArgumentException", "relative path segment");
    }
    assertThat(admin("HEAD", "/iceberg/v1/main/namespaces/db/tables/t", null).statusCode()).isEqualTo(204);
  }

  @Test
  void readNeedsReadWriteNeedsWritePurgeNeedsAdminAndDeletedByIsThePrincipal() throws Exception {
    Path auth = dir.resolve("auth.yaml");
    Files.writeString(auth, "principals:\n"
        + principal("reader", "reader-token", "[main]", "[]")
        + principal("writer", "writer-token", "[]", "[main]")
        + principal("elsewhere", "elsewhere-token", "[other]", "[other]")
        + principal("root", "root-token", "[\"*\"]", "[\"*\"]"));
    adminToken = "root-token";
    start(true, 86_400_000L, auth);
    createTable("db", "t");
    createTable("db", "u");

    assertError(send("DELETE", API + "/t", null, "reader-token"), 403, "ForbiddenException", "reader");
    assertThat(send("DELETE", API + "/t", null, "writer-token").statusCode()).isEqualTo(204);
    HttpResponse<String> list = send("GET", API + "?deleted=true", null, "reader-token");
    assertThat(list.statusCode()).isEqualTo(200);
    assertThat(json(list).get("deleted").get(0).get("deletedBy").asText()).isEqualTo("writer");
    assertThat(send("GET", API + "/t?deleted=true", null, "reader-token").statusCode()).isEqualTo(200);
    assertError(send("GET", API + "?deleted=true", null, "elsewhere-token"), 403, "ForbiddenException", "elsewhere");
    HttpResponse<String> anonymous = send("GET", API + "?deleted=true", null, null);
    assertError(anonymous, 401, "NotAuthorizedException", "Authorization");
    assertThat(anonymous.headers().firstValue("WWW-Authenticate")).contains("Bearer realm=\"lethe\"");
    assertError(send("POST", API + "/t/undrop", null, "reader-token"), 403, "ForbiddenException", "reader");
    assertError(send("POST", API + "/t/purge", null, "writer-token"), 403, "ForbiddenException", "not an admin");
    assertThat(json(send("GET", API + "/t?deleted=true", null, "reader-token")).get("state").asText()).isEqualTo("DELETED");
    assertThat(send("POST", API + "/t/undrop", null, "writer-token").statusCode()).isEqualTo(200);

    HttpResponse<String> icebergDrop = send("DELETE", "/iceberg/v1/main/namespaces/db/tables/u", null, "writer-token");
    assertThat(icebergDrop.statusCode()).isEqualTo(204);
    assertThat(json(send("GET", API + "/u?deleted=true", null, "reader-token")).get("deletedBy").asText()).isEqualTo("writer");
    assertThat(send("POST", API + "/u/purge", null, "root-token").statusCode()).as("no purge requested: 200").isEqualTo(200);
  }

  private static String principal(String name, String token, String read, String write) {
    return "  - name: " + name + "\n    token-sha256: " + TokenHash.sha256Hex(token) + "\n    read: " + read
        + "\n    write: " + write + "\n";
  }
}
