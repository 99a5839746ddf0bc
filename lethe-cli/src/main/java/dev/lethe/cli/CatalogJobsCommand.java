package dev.lethe.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code lethe catalog jobs}: prints the cleanup jobs of a catalog as a table, from {@code GET
 * /api/metalakes/{m}/catalogs/{c}/cleanups} of a running server (docs/purge.md "Watching it").
 *
 * <p>Exit codes: 0 listed, 1 server unreachable or failing, 2 bad option or a 4xx answer (one line
 * on stderr).
 */
@Command(name = "jobs", mixinStandardHelpOptions = true,
    description = "List the asynchronous purge (cleanup) jobs of a catalog.")
final class CatalogJobsCommand implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(names = "--server", defaultValue = "http://127.0.0.1:9001", description = "Server base URL (default: ${DEFAULT-VALUE}).")
  String server;

  @Option(names = "--metalake", defaultValue = "default", description = "Metalake (default: ${DEFAULT-VALUE}).")
  String metalake;

  @Option(names = "--catalog", defaultValue = "main", description = "Catalog (default: ${DEFAULT-VALUE}).")
  String catalog;

  @Option(names = "--namespace", description = "Only this namespace (levels separated by dots).")
  String namespace;

  @Option(names = "--name", description = "Only this table or view name.")
  String name;

  @Option(names = "--state", description = "Only this state: PENDING, RUNNING, SUCCEEDED, FAILED, CANCELLED.")
  String state;

  @Option(names = "--token", description = "Bearer token (default: environment variable LETHE_TOKEN).")
  String token;

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    URI uri;
    try {
      uri = URI.create(stripSlash(server) + "/api/metalakes/" + encode(metalake) + "/catalogs/" + encode(catalog)
          + "/cleanups" + query());
    } catch (IllegalArgumentException e) {
      err.println("lethe catalog jobs: invalid --server: " + server);
      return 2;
    }
    String bearer = token != null ? token : System.getenv("LETHE_TOKEN");
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET();
    if (bearer != null && !bearer.isBlank()) {
      request.header("Authorization", "Bearer " + bearer);
    }
    HttpResponse<String> response;
    try {
      response = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build()
          .send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      err.println("lethe catalog jobs: cannot reach " + server + ": " + e.getMessage());
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
    JsonNode body;
    try {
      body = JSON.readTree(response.body());
    } catch (IOException e) {
      err.println("lethe catalog jobs: server answered " + response.statusCode() + " without JSON");
      return 1;
    }
    if (response.statusCode() != 200) {
      String message = body.path("message").asText(body.path("error").path("message").asText("HTTP " + response.statusCode()));
      err.println("lethe catalog jobs: " + message);
      return response.statusCode() >= 500 ? 1 : 2;
    }
    print(spec.commandLine().getOut(), body.path("cleanups"));
    return 0;
  }

  private String query() {
    List<String> params = new ArrayList<>();
    if (namespace != null) {
      params.add("namespace=" + encode(namespace));
    }
    if (name != null) {
      params.add("name=" + encode(name));
    }
    if (state != null) {
      params.add("state=" + encode(state));
    }
    return params.isEmpty() ? "" : "?" + String.join("&", params);
  }

  static void print(PrintWriter out, JsonNode jobs) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"ID", "TYPE", "NAMESPACE", "NAME", "STATE", "ATTEMPTS", "CREATED_BY", "UPDATED", "LAST_ERROR"});
    for (JsonNode j : jobs) {
      List<String> levels = new ArrayList<>();
      j.path("namespace").forEach(l -> levels.add(l.asText()));
      rows.add(new String[] {
          j.path("id").asText(), j.path("objectType").asText(), String.join(".", levels), j.path("name").asText(),
          j.path("state").asText(), j.path("attempts").asText(), j.path("createdBy").asText(),
          Instant.ofEpochMilli(j.path("updatedAt").asLong()).toString(),
          j.path("lastError").isNull() ? "" : j.path("lastError").asText().replace('\n', ' ')});
    }
    int[] widths = new int[rows.get(0).length];
    for (String[] r : rows) {
      for (int i = 0; i < r.length - 1; i++) {
        widths[i] = Math.max(widths[i], r[i].length());
      }
    }
    for (String[] r : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < r.length; i++) {
        line.append(i == r.length - 1 ? r[i] : String.format("%-" + widths[i] + "s  ", r[i]));
      }
      out.println(line.toString().stripTrailing());
    }
    out.flush();
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static String stripSlash(String s) {
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }
}
