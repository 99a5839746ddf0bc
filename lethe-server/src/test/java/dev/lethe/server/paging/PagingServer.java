package dev.lethe.server.paging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.store.jdbc.FreshStoreDatabases;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A real {@link LetheServer} on a fresh H2, PostgreSQL or MariaDB database with soft deletion on
 * (one day's retention) and no purge workers (cleanup jobs stay {@code PENDING}), spoken to over
 * real HTTP, and the paged walks of every catalog listing.
 */
final class PagingServer implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String ICEBERG = "/iceberg/v1/main";
  static final String API = "/api/metalakes/default/catalogs/main";
  private static final String TABLE_BODY = "{\"name\":\"%s\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,"
      + "\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]}}";
  private static final String VIEW_BODY = "{\"name\":\"%s\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,"
      + "\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]},\"view-version\":{\"version-id\":1,"
      + "\"timestamp-ms\":1,\"schema-id\":0,\"summary\":{},\"default-namespace\":[],\"representations\":"
      + "[{\"type\":\"sql\",\"sql\":\"select 1\",\"dialect\":\"spark\"}]},\"properties\":{}}";

  private final FreshStoreDatabases databases = new FreshStoreDatabases();
  private final HttpClient http = HttpClient.newHttpClient();
  private final LetheServer server;

  PagingServer(String backend, Path dir) throws Exception {
    this(null, backend, dir);
  }

  /** A server on {@code jdbcUrl} (a database another server may use too), or on a fresh one of {@code backend} when null. */
  PagingServer(String jdbcUrl, String backend, Path dir) throws Exception {
    if (jdbcUrl == null) {
      jdbcUrl = databases.create(backend, dir);
    }
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), jdbcUrl, null, null, 8,
        dir.resolve("warehouse").toString(), ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, Map.of(
            ConfigKeys.SOFT_DELETE_ENABLED, "true",
            ConfigKeys.SOFT_DELETE_RETENTION_MS, "86400000",
            ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0")));
  }

  LetheServer server() {
    return server;
  }

  String base() {
    return "http://127.0.0.1:" + server.port();
  }

  HttpResponse<String> send(String method, String path, String body, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base() + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", "application/json");
    for (int i = 0; i + 1 < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Sends and requires {@code status}. */
  HttpResponse<String> expect(int status, String method, String path, String body, String... headers) throws Exception {
    HttpResponse<String> r = send(method, path, body, headers);
    assertThat(r.statusCode()).as(method + " " + path + ": " + r.body()).isEqualTo(status);
    return r;
  }

  static String ns(String... levels) {
    return URLEncoder.encode(String.join("\u001f", levels), StandardCharsets.UTF_8);
  }

  int createNamespace(String... levels) throws Exception {
    return send("POST", ICEBERG + "/namespaces", JSON.writeValueAsString(Map.of("namespace", List.of(levels)))).statusCode();
  }

  int dropNamespace(String... levels) throws Exception {
    return send("DELETE", ICEBERG + "/namespaces/" + ns(levels), null).statusCode();
  }

  int createTable(String ns, String name) throws Exception {
    return send("POST", ICEBERG + "/namespaces/" + ns + "/tables", String.format(TABLE_BODY, name)).statusCode();
  }

  /** A drop with soft deletion on: the table moves to the deleted listing. */
  int dropTable(String ns, String name) throws Exception {
    return send("DELETE", ICEBERG + "/namespaces/" + ns + "/tables/" + name, null).statusCode();
  }

  int undrop(String ns, String name) throws Exception {
    return send("POST", API + "/schemas/" + ns + "/tables/" + name + "/undrop", null).statusCode();
  }

  int createView(String ns, String name) throws Exception {
    return send("POST", ICEBERG + "/namespaces/" + ns + "/views", String.format(VIEW_BODY, name)).statusCode();
  }

  int dropView(String ns, String name) throws Exception {
    return send("DELETE", ICEBERG + "/namespaces/" + ns + "/views/" + name, null).statusCode();
  }

  /** Drops a view with the async header: a new (PENDING, no workers) cleanup job. */
  int dropViewAsync(String ns, String name) throws Exception {
    return send("DELETE", ICEBERG + "/namespaces/" + ns + "/views/" + name, null, "X-Lethe-Async-Purge", "true").statusCode();
  }

  /**
   * A catalog listing as a client walks it.
   *
   * @param path the route with its own query, without page parameters
   * @param items the response field holding the entries
   * @param token the response field holding the next page's token
   * @param sizeParam the query parameter of the page size
   * @param key an entry's key as the test names it
   */
  record Listing(String name, String path, String items, String token, String sizeParam, Function<JsonNode, String> key) {
    String url(int size, String pageToken) {
      String sep = path.contains("?") ? "&" : "?";
      return path + sep + sizeParam + "=" + size
          + (pageToken == null ? "" : "&pageToken=" + URLEncoder.encode(pageToken, StandardCharsets.UTF_8));
    }
  }

  static Listing namespaces(String... parent) {
    String path = ICEBERG + "/namespaces" + (parent.length == 0 ? "" : "?parent=" + ns(parent));
    return new Listing("namespaces" + List.of(parent), path, "namespaces", "next-page-token", "pageSize",
        n -> n.get(n.size() - 1).asText());
  }

  static Listing tables(String ns) {
    return new Listing("tables", ICEBERG + "/namespaces/" + ns + "/tables", "identifiers", "next-page-token", "pageSize",
        n -> n.get("name").asText());
  }

  static Listing views(String ns) {
    return new Listing("views", ICEBERG + "/namespaces/" + ns + "/views", "identifiers", "next-page-token", "pageSize",
        n -> n.get("name").asText());
  }

  static Listing deleted(String ns) {
    return new Listing("deleted", API + "/schemas/" + ns + "/tables?deleted=true", "deleted", "nextPageToken", "pageSize",
        n -> n.get("name").asText());
  }

  static Listing cleanups(String query) {
    return new Listing("cleanups", API + "/cleanups" + query, "cleanups", "nextPageToken", "limit",
        n -> n.get("id").asText());
  }

  /** One page: its keys and the next token (null when the response has none). */
  record Page(List<String> keys, String next) {}

  Page page(Listing l, int size, String pageToken) throws Exception {
    HttpResponse<String> r = expect(200, "GET", l.url(size, pageToken), null);
    JsonNode body = JSON.readTree(r.body());
    List<String> keys = new ArrayList<>();
    body.get(l.items()).forEach(n -> keys.add(l.key().apply(n)));
    JsonNode next = body.get(l.token());
    return new Page(keys, next == null || next.isNull() ? null : next.asText());
  }

  /** A whole walk: every page's keys, in order, one list per page. */
  List<List<String>> walk(Listing l, int size) throws Exception {
    List<List<String>> pages = new ArrayList<>();
    String token = null;
    do {
      Page p = page(l, size, token);
      pages.add(p.keys());
      token = p.next();
      if (pages.size() > 100_000) {
        throw new AssertionError("walk of " + l.name() + " does not end");
      }
    } while (token != null);
    return pages;
  }

  @Override
  public void close() throws Exception {
    try {
      server.close();
    } finally {
      databases.close();
    }
  }
}
