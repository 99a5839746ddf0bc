package dev.lethe.server.badinput;

import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.store.jdbc.FreshStoreDatabases;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
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
      "lethe_location_claim", "lethe_cleanup_job", "lethe_entity_deletion", "lethe_cleanup_receipt", "lethe_hold",
      "lethe_protection");

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

  /** A response read off a raw socket. */
  record Raw(int status, Map<String, String> headers, String body) {}

  /**
   * Sends a request over a plain socket, bytes exactly as given (a path {@link java.net.URI} would
   * refuse, such as a lone {@code %}, too), with {@code Connection: close}, and reads the response.
   */
  Raw sendRaw(String method, String path, String body, List<String> headers) throws IOException {
    byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
    StringBuilder head = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
    for (int i = 0; i + 1 < headers.size(); i += 2) {
      head.append(headers.get(i)).append(": ").append(headers.get(i + 1)).append("\r\n");
    }
    if (body != null) {
      head.append("Content-Type: application/json\r\nContent-Length: ").append(content.length).append("\r\n");
    }
    head.append("\r\n");
    try (Socket socket = new Socket("127.0.0.1", server.port())) {
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      out.write(head.toString().getBytes(StandardCharsets.UTF_8));
      out.write(content);
      out.flush();
      byte[] all = socket.getInputStream().readAllBytes();
      return parse(all, method.equals("HEAD"));
    }
  }

  private static Raw parse(byte[] all, boolean head) {
    String text = new String(all, StandardCharsets.ISO_8859_1);
    int end = text.indexOf("\r\n\r\n");
    String[] lines = text.substring(0, end).split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    Map<String, String> headers = new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      headers.put(lines[i].substring(0, colon).trim(), lines[i].substring(colon + 1).trim());
    }
    byte[] rest = java.util.Arrays.copyOfRange(all, end + 4, all.length);
    if (!head && "chunked".equalsIgnoreCase(headers.get("Transfer-Encoding"))) {
      java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
      int at = 0;
      while (true) {
        int lineEnd = indexOf(rest, at);
        int size = Integer.parseInt(new String(rest, at, lineEnd - at, StandardCharsets.ISO_8859_1).split(";")[0].trim(), 16);
        if (size == 0) {
          break;
        }
        body.write(rest, lineEnd + 2, size);
        at = lineEnd + 2 + size + 2;
      }
      rest = body.toByteArray();
    }
    return new Raw(status, headers, new String(rest, StandardCharsets.UTF_8));
  }

  private static int indexOf(byte[] bytes, int from) {
    for (int i = from; i + 1 < bytes.length; i++) {
      if (bytes[i] == '\r' && bytes[i + 1] == '\n') {
        return i;
      }
    }
    throw new IllegalStateException("truncated chunked body");
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
