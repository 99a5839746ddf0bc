package dev.lethe.server.purge;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lethe.server.LetheServer;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.config.ConfigKeys;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Iceberg REST {@code DELETE} and the management {@code DELETE} of a table give the same answer
 * for the same inputs (issue 9 rule 6): one {@code DropPlanner} decides both. For every {@code
 * purgeRequested} × async header × live/absent table, with soft delete off and on, each route drops
 * its own copy of a table and the answers are compared: status, error type and message (each in its
 * route's error shape), and the cleanup job or deletion record left behind.
 */
class DropRoutesParityTest {
  private static final ObjectMapper JSON = ServerHttp.JSON;

  @TempDir Path dir;
  private LetheServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private HttpResponse<String> send(String method, String path, Map<String, String> headers) throws Exception {
    return new ServerHttp(server).send(method, path, null, headers);
  }

  /** status, error type and message (table name replaced by NAME), and what the drop left. */
  private Map<String, String> answer(HttpResponse<String> r, String name, boolean iceberg) throws Exception {
    Map<String, String> a = new LinkedHashMap<>();
    a.put("status", String.valueOf(r.statusCode()));
    if (r.statusCode() >= 400) {
      JsonNode body = JSON.readTree(r.body());
      JsonNode error = iceberg ? body.get("error") : body;
      a.put("type", error.get("type").asText());
      a.put("message", error.get("message").asText().replace(name, "NAME"));
      a.put("code", error.get("code").asText());
    }
    a.put("purge-state", r.headers().firstValue("X-Lethe-Purge-State").orElse("-"));
    JsonNode jobs = JSON.readTree(send("GET", "/api/metalakes/default/catalogs/main/cleanups?name=" + name, Map.of()).body())
        .get("cleanups");
    a.put("jobs", jobs.size() == 0 ? "none" : jobs.get(0).get("state").asText() + "x" + jobs.size());
    HttpResponse<String> deleted = send("GET", "/api/metalakes/default/catalogs/main/schemas/db/tables/" + name + "?deleted=true",
        Map.of());
    a.put("deletion", deleted.statusCode() == 200 ? JSON.readTree(deleted.body()).get("purgeRequested").asText() : "none");
    a.put("live", String.valueOf(send("HEAD", "/iceberg/v1/main/namespaces/db/tables/" + name, Map.of()).statusCode()));
    return a;
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void bothRoutesAnswerEveryCombinationAlike(boolean softDelete) throws Exception {
    Map<String, String> props = new HashMap<>();
    props.put(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0"); // async jobs stay PENDING: comparable
    props.put(ConfigKeys.SOFT_DELETE_ENABLED, String.valueOf(softDelete));
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir, null, null, null, 10, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, props));
    send("POST", "/iceberg/v1/main/namespaces", Map.of());
    new ServerHttp(server).send("POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}", Map.of());

    List<String> purgeValues = Arrays.asList(null, "true", "false", "maybe");
    List<String> headerValues = Arrays.asList(null, "true", "FALSE", "yes");
    List<String> mismatches = new ArrayList<>();
    int n = 0;
    int badHeader = 0;
    for (String purge : purgeValues) {
      for (String header : headerValues) {
        for (boolean live : new boolean[] {true, false}) {
          n++;
          Map<String, String> headers = header == null ? Map.of() : Map.of("X-Lethe-Async-Purge", header);
          String query = purge == null ? "" : "?purgeRequested=" + purge;
          String a = "ice" + n;
          String b = "mgmt" + n;
          if (live) {
            new ServerHttp(server).createTable("db", a, Map.of());
            new ServerHttp(server).createTable("db", b, Map.of());
          }
          Map<String, String> iceberg = answer(send("DELETE", "/iceberg/v1/main/namespaces/db/tables/" + a + query, headers), a, true);
          Map<String, String> management = answer(send("DELETE",
              "/api/metalakes/default/catalogs/main/schemas/db/tables/" + b + query, headers), b, false);
          if (!iceberg.equals(management)) {
            mismatches.add("purgeRequested=" + purge + " header=" + header + " live=" + live + ": iceberg " + iceberg
                + " management " + management);
          }
          if ("yes".equals(header) && !"maybe".equals(purge)) {
            badHeader++;
            assertThat(iceberg.get("status")).as("a malformed header is 400 whatever else: %s", iceberg).isEqualTo("400");
            assertThat(iceberg.get("message")).isEqualTo("Invalid X-Lethe-Async-Purge header: expected true or false, got 'yes'");
            assertThat(iceberg.get("type")).isEqualTo("IllegalArgumentException");
          }
        }
      }
    }
    assertThat(badHeader).isEqualTo(3 * 2);
    assertThat(mismatches).isEmpty();
  }
}
