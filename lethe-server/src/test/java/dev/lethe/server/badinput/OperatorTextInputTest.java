package dev.lethe.server.badinput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An operator's text on the management routes (docs/design/0400-strict-request-input.md) on H2,
 * PostgreSQL and MariaDB: the reason of an abandon or rescue, and the names in the cleanup
 * listing's filter and in a hold's or protection's DELETE query, are refused with a 400 in the
 * {@code {code,type,message}} shape when no entry could have them (U+0000, which PostgreSQL refuses
 * to store; an unpaired surrogate, which it would store as {@code ?}; a body that is not UTF-8; an
 * empty namespace level), and nothing changes.
 */
class OperatorTextInputTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String M = "/api/metalakes/default/catalogs/main";

  @TempDir Path dir;
  private BackendServer s;

  @AfterEach
  void stop() throws Exception {
    if (s != null) {
      s.close();
    }
  }

  private JsonNode job(String name) throws Exception {
    return JSON.readTree(s.send("GET", M + "/cleanups?name=" + name, null).body()).path("cleanups").path(0);
  }

  /** A job of table db.t in state FAILED, so abandon and rescue reach their update when the input passes. */
  private long failedJob() throws Exception {
    assertThat(s.send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}").statusCode()).isEqualTo(200);
    HttpResponse<String> created = s.send("POST", "/iceberg/v1/main/namespaces/db/tables",
        "{\"name\":\"t\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":[]}}");
    assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
    assertThat(s.send("DELETE", "/iceberg/v1/main/namespaces/db/tables/t?purgeRequested=true", null,
        "X-Lethe-Async-Purge", "true").statusCode()).isEqualTo(204);
    await().atMost(Duration.ofSeconds(60)).until(() -> job("t").path("state").asText().equals("SUCCEEDED"));
    long id = job("t").path("id").asLong();
    try (Connection c = DriverManager.getConnection(s.jdbcUrl);
        PreparedStatement u = c.prepareStatement("UPDATE lethe_cleanup_job SET state = 'FAILED' WHERE job_id = ?")) {
      u.setLong(1, id);
      assertThat(u.executeUpdate()).isEqualTo(1);
    }
    return id;
  }

  private HttpResponse<String> sendBytes(String path, byte[] body) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(s.base() + path))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "mariadb"})
  void aNameOrReasonNoEntryCouldHaveIs400OnEveryOperatorRouteAndChangesNothing(String backend) throws Exception {
    s = new BackendServer(backend, dir);
    long id = failedJob();
    String before = s.snapshot();
    List<String> wrong = new ArrayList<>();
    List<String[]> requests = new ArrayList<>();
    for (String action : new String[] {"abandon", "rescue"}) {
      requests.add(new String[] {"POST", M + "/cleanups/" + id + "/" + action, "{\"reason\":\"a\\u0000b\"}"});
      requests.add(new String[] {"POST", M + "/cleanups/" + id + "/" + action, "{\"reason\":\"a\\ud800b\"}"});
    }
    for (String query : new String[] {"name=a%00b", "name=..", "name=a%2Fb", "namespace=a..b", "namespace=db%1F%1Fx",
        "namespace=a%00b", "namespace=%5B%22a%5Cu0000b%22%5D"}) {
      requests.add(new String[] {"GET", M + "/cleanups?" + query, null});
    }
    for (String route : new String[] {"/holds", "/protections"}) {
      for (String query : new String[] {"kind=table&namespace=db&name=t%00", "kind=table&namespace=db&name=..",
          "kind=table&namespace=db..x&name=t", "kind=table&namespace=db%1F%1Fx&name=t", "kind=namespace&namespace=a%00"}) {
        requests.add(new String[] {"DELETE", M + route + "?" + query, null});
      }
    }
    for (String[] r : requests) {
      HttpResponse<String> answer = s.send(r[0], r[1], r[2]);
      JsonNode body = answer.body().startsWith("{") ? JSON.readTree(answer.body()) : JSON.nullNode();
      if (answer.statusCode() != 400 || body.path("code").asInt() != 400
          || body.path("type").asText().isEmpty() || body.path("message").asText().isEmpty()) {
        wrong.add(answer.statusCode() + " for " + String.join(" ", r[0], r[1], String.valueOf(r[2])) + " -> " + answer.body());
      }
    }
    for (String action : new String[] {"abandon", "rescue"}) {
      // not UTF-8: refused as the hold and protection bodies are, not stored with U+FFFD
      byte[] notUtf8 = "{\"reason\":\"a\u00ff\"}".getBytes(StandardCharsets.ISO_8859_1);
      HttpResponse<String> answer = sendBytes(M + "/cleanups/" + id + "/" + action, notUtf8);
      if (answer.statusCode() != 400) {
        wrong.add(answer.statusCode() + " for a " + action + " body that is not UTF-8 -> " + answer.body());
      }
    }
    assertThat(wrong).isEmpty();
    assertThat(s.snapshot()).isEqualTo(before);
    assertThat(job("t").path("state").asText()).isEqualTo("FAILED");
  }
}
