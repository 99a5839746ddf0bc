package dev.lethe.server.badinput;

import dev.lethe.server.LetheServer;
import dev.lethe.server.ServerConfig;
import dev.lethe.store.jdbc.FreshStoreDatabases;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * An in-process {@link LetheServer} on a fresh H2, PostgreSQL or MariaDB database, spoken to over
 * real HTTP, with a snapshot of every catalog row and every warehouse file to prove a refused
 * request changed nothing.
 */
final class BackendServer implements AutoCloseable {
  /** The catalog tables a request can change. */
  private static final List<String> TABLES = List.of("lethe_namespace", "lethe_table", "lethe_view",
      "lethe_location_claim", "lethe_cleanup_job", "lethe_entity_deletion");

  private final FreshStoreDatabases databases = new FreshStoreDatabases();
  private final HttpClient http = HttpClient.newHttpClient();
  final LetheServer server;
  final String jdbcUrl;
  final Path warehouse;

  BackendServer(String backend, Path dir) throws Exception {
    jdbcUrl = databases.create(backend, dir);
    warehouse = dir.resolve("warehouse");
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), jdbcUrl, null, null, 4,
        warehouse.toString(), ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, Map.of()));
  }

  String base() {
    return "http://127.0.0.1:" + server.port();
  }

  /** Sends a request; {@code path} is used exactly as given (already encoded). */
  HttpResponse<String> send(String method, String path, String body, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base() + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", "application/json");
    for (int i = 0; i + 1 < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Every catalog row (all columns, sorted) and every file under the warehouse. */
  String snapshot() throws Exception {
    StringBuilder sb = new StringBuilder();
    try (Connection c = DriverManager.getConnection(jdbcUrl); Statement s = c.createStatement()) {
      for (String table : TABLES) {
        List<String> rows = new ArrayList<>();
        try (ResultSet rs = s.executeQuery("SELECT * FROM " + table)) {
          ResultSetMetaData md = rs.getMetaData();
          while (rs.next()) {
            StringBuilder row = new StringBuilder();
            for (int i = 1; i <= md.getColumnCount(); i++) {
              row.append(md.getColumnLabel(i).toLowerCase()).append('=').append(rs.getString(i)).append(';');
            }
            rows.add(row.toString());
          }
        }
        rows.sort(null);
        sb.append(table).append(": ").append(rows).append('\n');
      }
    }
    sb.append("files: ").append(files()).append('\n');
    return sb.toString();
  }

  List<String> files() throws IOException {
    if (!Files.exists(warehouse)) {
      return List.of();
    }
    try (Stream<Path> walk = Files.walk(warehouse)) {
      return walk.map(p -> warehouse.relativize(p).toString()).sorted().toList();
    }
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
