package dev.lethe.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

/** Raw HTTP against an in-process {@link LetheServer}, for the route tests. */
public final class ServerHttp {
  /** JSON reader of response bodies. */
  public static final ObjectMapper JSON = new ObjectMapper();
  /** An Iceberg REST create-table body with one {@code long} column; format it with the name. */
  public static final String TABLE_BODY = "{\"name\":\"%s\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,"
      + "\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]}}";

  private final HttpClient http = HttpClient.newHttpClient();
  private final LetheServer server;

  public ServerHttp(LetheServer server) {
    this.server = server;
  }

  /** Sends a request with a JSON content type and the given headers. */
  public HttpResponse<String> send(String method, String path, String body, Map<String, String> headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", "application/json");
    headers.forEach(b::header);
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /**
   * Creates table {@code name} in catalog {@code main}, namespace {@code ns} (as in the path) and
   * returns its metadata location; fails unless the server answers 200.
   */
  public String createTable(String ns, String name, Map<String, String> headers) throws Exception {
    HttpResponse<String> r = send("POST", "/iceberg/v1/main/namespaces/" + ns + "/tables", String.format(TABLE_BODY, name), headers);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body()).get("metadata-location").asText();
  }
}
