package dev.lethe.server.softdelete;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.config.ConfigKeys;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Iceberg REST {@code DELETE} of a table with soft delete on, over real HTTP (embedded H2). */
class SoftDropIcebergRoutesTest {
  private static final String TABLE_BODY = ServerHttp.TABLE_BODY;
  private static final String T = "/iceberg/v1/main/namespaces/db/tables/t";

  @TempDir Path dir;
  private LetheServer server;
  private ServerConfig config;

  private void start(boolean softDelete) throws Exception {
    Map<String, String> props = new HashMap<>();
    props.put(ConfigKeys.SOFT_DELETE_ENABLED, String.valueOf(softDelete));
    props.put(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0");
    config = new ServerConfig("127.0.0.1", 0, dir, null, null, null, 10, null, ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, props);
    server = LetheServer.start(config);
    send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}", Map.of());
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private HttpResponse<String> send(String method, String path, String body, Map<String, String> headers) throws Exception {
    return new ServerHttp(server).send(method, path, body, headers);
  }

  private String createTable(String name) throws Exception {
    return new ServerHttp(server).createTable("db", name, Map.of());
  }

  /** Rows of a query on the server's own H2 database ({@code column=value}, in order). */
  private List<String> query(String sql) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(config.effectiveJdbcUrl()); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
          sb.append(i > 1 ? " " : "").append(rs.getMetaData().getColumnLabel(i).toLowerCase()).append('=').append(rs.getString(i));
        }
        out.add(sb.toString());
      }
    }
    return out;
  }

  @Test
  void deleteWritesARecordKeepsTheRowAndTheTableAnswers404Everywhere() throws Exception {
    start(true);
    String metadata = createTable("t");

    assertThat(send("DELETE", T, null, Map.of()).statusCode()).isEqualTo(204);

    assertThat(send("GET", T, null, Map.of()).statusCode()).isEqualTo(404);
    assertThat(send("HEAD", T, null, Map.of()).statusCode()).isEqualTo(404);
    assertThat(send("GET", "/iceberg/v1/main/namespaces/db/tables", null, Map.of()).body()).doesNotContain("\"t\"");
    assertThat(query("SELECT state, deleted_by, purge_requested, purge_job_id FROM lethe_entity_deletion"))
        .containsExactly("state=DELETED deleted_by=anonymous purge_requested=FALSE purge_job_id=null");
    assertThat(query("SELECT COUNT(*) AS n FROM lethe_table WHERE deletion_id IS NOT NULL AND metadata_location = '" + metadata + "'"))
        .containsExactly("n=1");
    assertThat(Path.of(metadata)).exists();
    assertThat(send("DELETE", T, null, Map.of()).statusCode()).as("replayed drop").isEqualTo(404);
    assertThat(query("SELECT COUNT(*) AS n FROM lethe_entity_deletion")).containsExactly("n=1");
  }

  @Test
  void purgeRequestedAndTheAsyncHeaderAreCapturedOnTheRecordAndNoFileOrJobIsTouched() throws Exception {
    start(true);
    String metadata = createTable("t");

    HttpResponse<String> r = send("DELETE", T + "?purgeRequested=true", null, Map.of("X-Lethe-Async-Purge", "true"));

    assertThat(r.statusCode()).isEqualTo(204);
    assertThat(query("SELECT state, purge_requested FROM lethe_entity_deletion")).containsExactly("state=DELETED purge_requested=TRUE");
    assertThat(query("SELECT COUNT(*) AS n FROM lethe_cleanup_job")).containsExactly("n=0");
    assertThat(Path.of(metadata)).exists();
  }

  @Test
  void heldNameAnswers409NamingTheRetainedDeletionForCreateRegisterAndRename() throws Exception {
    start(true);
    String metadata = createTable("t");
    createTable("other");
    send("DELETE", T, null, Map.of());
    String deletionId = query("SELECT deletion_id FROM lethe_entity_deletion").get(0).substring("deletion_id=".length());
    String entityId = query("SELECT entity_id FROM lethe_entity_deletion").get(0).substring("entity_id=".length());

    HttpResponse<String> create = send("POST", "/iceberg/v1/main/namespaces/db/tables", String.format(TABLE_BODY, "t"), Map.of());
    HttpResponse<String> register = send("POST", "/iceberg/v1/main/namespaces/db/register",
        "{\"name\":\"t\",\"metadata-location\":\"" + metadata + "\"}", Map.of());
    HttpResponse<String> rename = send("POST", "/iceberg/v1/main/tables/rename",
        "{\"source\":{\"namespace\":[\"db\"],\"name\":\"other\"},\"destination\":{\"namespace\":[\"db\"],\"name\":\"t\"}}", Map.of());

    for (HttpResponse<String> r : List.of(create, register, rename)) {
      assertThat(r.statusCode()).as(r.body()).isEqualTo(409);
      assertThat(r.body()).contains("AlreadyExistsException").contains("entity id " + entityId).doesNotContain(deletionId)
          .contains("recoverable until");
    }
    assertThat(send("DELETE", "/iceberg/v1/main/namespaces/db/tables/other", null, Map.of()).statusCode()).isEqualTo(204);
    HttpResponse<String> dropNs = send("DELETE", "/iceberg/v1/main/namespaces/db", null, Map.of());
    assertThat(dropNs.statusCode()).isEqualTo(409);
    assertThat(dropNs.body()).contains("NamespaceNotEmptyException").contains("t (entity id " + entityId).contains("other (entity id ")
        .doesNotContain(deletionId);
  }

  @Test
  void badPurgeRequestedOrAsyncHeaderIs400AndChangesNothing() throws Exception {
    start(true);
    createTable("t");

    assertThat(send("DELETE", T + "?purgeRequested=yes", null, Map.of()).statusCode()).isEqualTo(400);
    assertThat(send("DELETE", T, null, Map.of("X-Lethe-Async-Purge", "maybe")).statusCode()).isEqualTo(400);

    assertThat(send("HEAD", T, null, Map.of()).statusCode()).isEqualTo(204);
    assertThat(query("SELECT COUNT(*) AS n FROM lethe_entity_deletion")).containsExactly("n=0");
  }

  @Test
  void flagOffKeepsTheDropPathsOfIssuesTwoAndThree() throws Exception {
    start(false);
    String metadata = createTable("t");
    createTable("u");

    assertThat(send("DELETE", T, null, Map.of()).statusCode()).isEqualTo(204);
    assertThat(Path.of(metadata)).as("metadata-only drop keeps files").exists();
    assertThat(send("DELETE", "/iceberg/v1/main/namespaces/db/tables/u?purgeRequested=true", null,
        Map.of("X-Lethe-Async-Purge", "true")).statusCode()).isEqualTo(204);
    assertThat(query("SELECT COUNT(*) AS n FROM lethe_cleanup_job")).containsExactly("n=1");
    assertThat(query("SELECT COUNT(*) AS n FROM lethe_entity_deletion")).containsExactly("n=0");
    assertThat(query("SELECT COUNT(*) AS n FROM lethe_table")).containsExactly("n=0");
  }
}
