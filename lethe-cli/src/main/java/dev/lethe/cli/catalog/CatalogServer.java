package dev.lethe.cli.catalog;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.lethe.catalog.iceberg.EntityNames;
import dev.lethe.store.remote.BearerToken;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.iceberg.catalog.Namespace;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The options and the HTTP call every {@code lethe catalog} command shares (docs/design/0200-catalog-architecture.md "CLI"): the
 * server URL, the metalake and the bearer token, one request to a management route, its JSON answer,
 * and the one line a failure prints. A picocli mixin.
 */
final class CatalogServer {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectReader STRICT_JSON = new ObjectMapper(JsonFactory.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build())
      .reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  @Option(names = "--server", defaultValue = "http://127.0.0.1:9001", description = "Server base URL (default: ${DEFAULT-VALUE}).")
  String server;

  @Option(names = "--metalake", defaultValue = "default", description = "Metalake (default: ${DEFAULT-VALUE}).")
  String metalake;

  @Option(names = "--token", description = "Bearer token (default: environment variable LETHE_TOKEN).")
  String token;

  /** A command that cannot go on: {@code message} is its one stderr line, {@code exitCode} its exit code. */
  static final class Failure extends Exception {
    final int exitCode;

    Failure(int exitCode, String message) {
      super(message, null, false, false);
      this.exitCode = exitCode;
    }
  }

  /** An HTTP answer whose body is JSON. */
  record Answer(int status, JsonNode body, boolean tokenSent) {
    /**
     * The {@code message} of a management error body ({@code {code,type,message}}) or of an Iceberg one, on one line;
     * a 401 to a request that carried no token says where a token goes, as {@code lethe store} does.
     */
    String errorMessage() {
      String m = body.path("message").asText(body.path("error").path("message").asText(""));
      String line = (m.isEmpty() ? "HTTP " + status : m).replace('\n', ' ').replace('\r', ' ');
      return status == 401 && !tokenSent ? line + " (no token given: use --token or LETHE_TOKEN)" : line;
    }
  }

  /** {@code /api/metalakes/{metalake}/catalogs/{catalog}}, each part URL-encoded. */
  String catalogPath(String catalog) {
    return "/api/metalakes/" + encode(metalake) + "/catalogs/" + encode(catalog);
  }

  /**
   * Sends one request (no body) and reads its JSON answer, whatever its status.
   *
   * @param path path and query under the server URL, already encoded
   * @throws Failure exit 2 for a {@code --server} that is not an http(s) URL; exit 1 when the server
   *     cannot be reached or answers without JSON
   */
  Answer send(String method, String path) throws Failure {
    return send(method, path, null);
  }

  /**
   * {@link #send(String, String)} with a JSON request body ({@code null}: none); a {@code 204}
   * answer reads as an empty JSON object.
   */
  Answer send(String method, String path, String jsonBody) throws Failure {
    HttpRequest.Builder request;
    try {
      URI uri = URI.create(stripSlash(server) + path);
      request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
          .method(method, jsonBody == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(jsonBody));
      if (jsonBody != null) {
        request.header("Content-Type", "application/json");
      }
    } catch (IllegalArgumentException e) {
      throw new Failure(2, "invalid --server: " + server);
    }
    String bearer = token != null ? token : System.getenv("LETHE_TOKEN");
    boolean tokenSent = bearer != null && !bearer.isBlank();
    if (tokenSent) {
      try {
        BearerToken.check(bearer, token != null ? "--token" : "LETHE_TOKEN");
      } catch (IllegalArgumentException e) {
        // the JDK would refuse the header with the whole token in its message
        throw new Failure(2, e.getMessage());
      }
      request.header("Authorization", "Bearer " + bearer);
    }
    HttpResponse<String> response;
    try {
      response = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build()
          .send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new Failure(1, "cannot reach " + server + ": " + (e.getMessage() != null ? e.getMessage() : e.toString()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Failure(1, "interrupted");
    }
    if (response.statusCode() == 204) {
      return new Answer(204, JSON.createObjectNode(), tokenSent);
    }
    try {
      JsonNode body = JSON.readTree(response.body());
      if (body == null || body.isMissingNode()) {
        throw new IOException("empty body");
      }
      return new Answer(response.statusCode(), body, tokenSent);
    } catch (IOException e) {
      throw new Failure(1, "server answered " + response.statusCode() + " without JSON");
    }
  }

  /**
   * {@code /api/metalakes/{m}/catalogs/{catalog}/schemas/{s}/tables} for the catalog and namespace
   * given on the command line ({@link SchemaArgs#resolve} first).
   *
   * @throws CommandLine.ParameterException (exit 2, one line) for a bad catalog name or namespace,
   *     before any request
   */
  String tablesPath(CommandLine.Model.CommandSpec spec, SchemaArgs schema, boolean withTable) {
    schema.resolve(spec, withTable);
    try {
      EntityNames.check("catalog", schema.catalog);
      return catalogPath(schema.catalog) + "/schemas/" + schemaSegment(schema.namespace) + "/tables";
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  /**
   * The path of an action on one table, {@code …/schemas/{s}/tables/{t}/ACTION}, with every name checked.
   *
   * @param action the last segment, e.g. {@code undrop}, {@code purge}
   * @throws CommandLine.ParameterException if the catalog, namespace or table name is not valid (exit 2)
   */
  String tableActionPath(CommandLine.Model.CommandSpec spec, SchemaArgs schema, String action) {
    String tables = tablesPath(spec, schema, true);
    try {
      EntityNames.check("table", schema.table);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    return tables + "/" + encode(schema.table) + "/" + action;
  }

  /**
   * {@link #send}, and the JSON body of a {@code 200}.
   *
   * @throws Failure as {@link #send}; for any other status the server's message, exit 2 for a
   *     {@code 400} (the input was bad) and 1 otherwise (refused: 401, 403, 404, 409, 410; or failed)
   */
  JsonNode ok(String method, String path) throws Failure {
    Answer answer = send(method, path);
    if (answer.status() != 200) {
      throw new Failure(answer.status() == 400 ? 2 : 1, answer.errorMessage());
    }
    return answer.body();
  }

  /**
   * {@link #send}, and the answer of a {@code 200} or {@code 202}.
   *
   * @throws Failure as {@link #ok} for any other status
   */
  Answer accepted(String method, String path) throws Failure {
    return check(send(method, path));
  }

  /** {@link #accepted} with a JSON body. */
  Answer acceptedWith(String method, String path, String jsonBody) throws Failure {
    return check(send(method, path, jsonBody));
  }

  private static Answer check(Answer answer) throws Failure {
    if (answer.status() != 200 && answer.status() != 202) {
      throw new Failure(answer.status() == 400 ? 2 : 1, answer.errorMessage());
    }
    return answer;
  }

  /**
   * The {@code {s}} segment of the soft deletion routes for a namespace given on the command line as
   * levels separated by dots ({@code sales.eu}): each level URL-encoded, joined by {@code %1F} as the
   * Iceberg REST paths join them.
   *
   * @throws IllegalArgumentException naming the bad level (empty, {@code .}, {@code ..}, {@code /}, a
   *     control character, longer than 255 characters), before any request
   */
  static String schemaSegment(String dotted) {
    Namespace namespace = Namespace.of(levels(dotted).toArray(new String[0]));
    EntityNames.checkNamespace(namespace);
    return Arrays.stream(namespace.levels()).map(CatalogServer::encode).collect(Collectors.joining("%1F"));
  }

  /**
   * The levels of a name given on the command line: a JSON array of strings ({@code ["a.b","t"]},
   * the exact spelling, since a level may contain a dot), else the parts between dots
   * (docs/design/0441-drop-protection.md "Exact names").
   *
   * @throws IllegalArgumentException for a spelling starting with {@code [} that is not a non-empty
   *     JSON array of strings
   */
  static List<String> levels(String spelling) {
    if (!spelling.startsWith("[")) {
      return Arrays.asList(spelling.split("\\.", -1));
    }
    JsonNode array;
    try {
      array = STRICT_JSON.readTree(spelling);
    } catch (IOException e) {
      array = null;
    }
    List<String> levels = new ArrayList<>();
    if (array != null && array.isArray()) {
      for (JsonNode level : array) {
        if (!level.isTextual()) {
          levels = null;
          break;
        }
        levels.add(level.asText());
      }
    }
    if (levels == null || levels.isEmpty()) {
      throw new IllegalArgumentException("expected levels separated by dots, or a non-empty JSON array of strings "
          + "such as '[\"a.b\",\"t\"]', got '" + spelling + "'");
    }
    return levels;
  }

  /**
   * The name's levels as a reader can type them back: joined by dots, or as a JSON array when a
   * level contains a dot (so {@code ["a.b","t"]} and {@code a.b.t} never print alike).
   */
  static String spell(List<String> levels) {
    if (levels.stream().noneMatch(l -> l.contains("."))) {
      return String.join(".", levels);
    }
    ArrayNode array = JSON.createArrayNode();
    levels.forEach(array::add);
    return array.toString();
  }

  /** One path segment or query value, URL-encoded ({@code %20} for a space). */
  static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static String stripSlash(String s) {
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }
}
