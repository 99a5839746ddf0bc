package dev.lethe.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.iceberg.rest.RESTCatalog;
import org.awaitility.Awaitility;

/** HTTP helpers of the async purge tests: raw drops with headers, the cleanups listing, clients. */
final class AsyncPurgeHttp {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private AsyncPurgeHttp() {}

  static HttpResponse<String> send(String base, String method, String path, String body, Map<String, String> headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", "application/json");
    headers.forEach(b::header);
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** {@code DELETE …/tables/t?purgeRequested=true} with the async header (or none if {@code async} is null). */
  static HttpResponse<String> drop(String base, String catalog, String ns, String table, Boolean async)
      throws IOException, InterruptedException {
    return send(base, "DELETE", "/iceberg/v1/" + catalog + "/namespaces/" + ns + "/tables/" + table + "?purgeRequested=true", null,
        async == null ? Map.of() : Map.of("X-Lethe-Async-Purge", async.toString()));
  }

  static JsonNode cleanups(String base, String catalog, String query) throws IOException, InterruptedException {
    HttpResponse<String> r = send(base, "GET", "/api/metalakes/default/catalogs/" + catalog + "/cleanups" + query, null, Map.of());
    if (r.statusCode() != 200) {
      throw new AssertionError("cleanups answered " + r.statusCode() + ": " + r.body());
    }
    return JSON.readTree(r.body()).get("cleanups");
  }

  static void await(String what, Duration timeout, BooleanSupplier condition) {
    Awaitility.await(what).atMost(timeout).pollInterval(Duration.ofMillis(50)).until(condition::getAsBoolean);
  }

  /** The state of the newest job of a table name, or null if none. */
  static String state(String base, String catalog, String name) {
    try {
      JsonNode jobs = cleanups(base, catalog, "?name=" + name);
      return jobs.size() == 0 ? null : jobs.get(0).get("state").asText();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static RESTCatalog client(String icebergUri, String warehouse) {
    Map<String, String> props = new HashMap<>();
    props.put("uri", icebergUri);
    props.put("warehouse", warehouse);
    props.put("io-impl", "dev.lethe.catalog.io.LocalFileIO");
    RESTCatalog catalog = new RESTCatalog();
    catalog.initialize("lethe", props);
    return catalog;
  }

  /** A server config file with the given async purge keys (and anything else). */
  static List<String> configArgs(Path dir, Map<String, String> keys) throws IOException {
    Files.createDirectories(dir);
    Path file = Files.createTempFile(dir, "lethe-", ".properties");
    StringBuilder sb = new StringBuilder();
    keys.forEach((k, v) -> sb.append(k).append('=').append(v.replace("\\", "\\\\")).append('\n'));
    Files.writeString(file, sb.toString());
    return List.of("--config", file.toString());
  }
}
