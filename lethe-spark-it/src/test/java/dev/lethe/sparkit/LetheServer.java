package dev.lethe.sparkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lethe.it.LetheProcess;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A real {@code lethe server} process (lethe-it's {@link LetheProcess}, started from the shaded jar)
 * on a free port and a fresh data directory, configured through a properties file, plus the
 * management routes the Spark tests call.
 */
final class LetheServer implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  final LetheProcess process;
  final Path dataDir;

  private LetheServer(LetheProcess process, Path dataDir) {
    this.process = process;
    this.dataDir = dataDir;
  }

  /**
   * Starts a server.
   *
   * @param name prefix of the data directory under {@code lethe.it.work-dir}
   * @param config server keys ({@code lethe.*}) written to the config file
   * @param jdbcUrl the catalog database, or null for the embedded H2 default
   */
  static LetheServer start(String name, Map<String, String> config, String jdbcUrl) throws Exception {
    Path work = Path.of(System.getProperty("lethe.it.work-dir", "target/it"));
    Files.createDirectories(work);
    Path dataDir = Files.createTempDirectory(work, name + "-");
    Path file = dataDir.resolve("lethe.properties");
    StringBuilder sb = new StringBuilder();
    config.forEach((k, v) -> sb.append(k).append('=').append(v.replace("\\", "\\\\")).append('\n'));
    Files.writeString(file, sb.toString());
    List<String> args = jdbcUrl == null
        ? List.of("--config", file.toString())
        : List.of("--config", file.toString(), "--jdbc-url", jdbcUrl);
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    return new LetheServer(LetheProcess.start(port, dataDir, dataDir.resolve("server.log"), args, Map.of()), dataDir);
  }

  String icebergUri() {
    return process.icebergUri();
  }

  String base() {
    return "http://127.0.0.1:" + process.port();
  }

  /** The default warehouse of catalog {@code main}. */
  Path warehouse() {
    return dataDir.resolve("warehouse");
  }

  HttpResponse<String> send(String method, String path) throws IOException, InterruptedException {
    return send(method, path, Map.of());
  }

  /** A request with no body and these headers (e.g. {@code Authorization} when auth is on). */
  HttpResponse<String> send(String method, String path, Map<String, String> headers) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base() + path)).timeout(Duration.ofSeconds(60));
    headers.forEach(b::header);
    b.method(method, HttpRequest.BodyPublishers.noBody());
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String tables(String schema) {
    return "/api/metalakes/default/catalogs/main/schemas/" + schema + "/tables";
  }

  HttpResponse<String> undrop(String schema, String table) throws IOException, InterruptedException {
    return send("POST", tables(schema) + "/" + table + "/undrop");
  }

  /** The retained deletion of that table, or null when the route answers 404. */
  JsonNode deleted(String schema, String table) throws IOException, InterruptedException {
    HttpResponse<String> r = send("GET", tables(schema) + "/" + table + "?deleted=true");
    if (r.statusCode() == 404) {
      return null;
    }
    if (r.statusCode() != 200) {
      throw new AssertionError("GET deleted answered " + r.statusCode() + ": " + r.body());
    }
    return JSON.readTree(r.body());
  }

  /** The deleted-table listing of a schema. */
  JsonNode deletedList(String schema) throws IOException, InterruptedException {
    HttpResponse<String> r = send("GET", tables(schema) + "?deleted=true");
    if (r.statusCode() != 200) {
      throw new AssertionError("GET deleted answered " + r.statusCode() + ": " + r.body());
    }
    return JSON.readTree(r.body()).get("deleted");
  }

  /** The cleanup jobs of catalog {@code main} for one table name. */
  JsonNode cleanups(String table) throws IOException, InterruptedException {
    HttpResponse<String> r = send("GET", "/api/metalakes/default/catalogs/main/cleanups?name=" + table);
    if (r.statusCode() != 200) {
      throw new AssertionError("GET cleanups answered " + r.statusCode() + ": " + r.body());
    }
    return JSON.readTree(r.body()).get("cleanups");
  }

  /** {@code GET /iceberg/v1/config?warehouse=main}. */
  JsonNode icebergConfig() throws IOException, InterruptedException {
    HttpResponse<String> r = send("GET", "/iceberg/v1/config?warehouse=main");
    if (r.statusCode() != 200) {
      throw new AssertionError("GET config answered " + r.statusCode() + ": " + r.body());
    }
    return JSON.readTree(r.body());
  }

  /** Every regular file under {@code dir}, as paths relative to it (empty if it does not exist). */
  static List<String> files(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).map(p -> dir.relativize(p).toString()).sorted().toList();
    }
  }

  @Override
  public void close() throws Exception {
    process.close();
  }
}
