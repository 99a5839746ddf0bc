package dev.lethe.cli.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code lethe catalog jobs}: prints the cleanup jobs of a catalog as a table, from {@code GET
 * /api/metalakes/{m}/catalogs/{c}/cleanups} of a running server (docs/purge.md "Watching it").
 *
 * <p>Prints one page ({@code --limit} jobs, newest first); when more remain it prints one stderr
 * line naming the {@code --page-token} that continues the walk.
 *
 * <p>Exit codes, as every {@code lethe catalog} command (docs/soft-delete.md): 0 listed; 1 refused
 * (401, 403, 404) or the server unreachable or failing; 2 a bad option or a 400 answer. One line on
 * stderr.
 *
 * <p>Its subcommands {@code retry ID}, {@code run-now ID}, {@code abandon --reason TEXT ID} and
 * {@code rescue ID} are an admin's actions on one job
 * ({@link CatalogJobActionCommand}).
 */
@Command(name = "jobs", mixinStandardHelpOptions = true,
    subcommands = {CatalogJobActionCommand.Retry.class, CatalogJobActionCommand.RunNow.class,
        CatalogJobActionCommand.Abandon.class, CatalogJobActionCommand.Rescue.class},
    footerHeading = "%nExit codes:%n",
    footer = {"  0  ok", "  1  refused (401, 403, 404, 409, 410) or server unreachable or failing",
        "  2  bad argument, or a 400 answer"},
    description = {"List the purge (cleanup) jobs of a catalog: state, phase, progress, lease.",
        "Admin actions on one job: jobs retry|run-now|rescue ID,",
        "jobs abandon --reason TEXT ID."})
final class CatalogJobsCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Mixin CatalogServer server;

  @Option(names = "--catalog", defaultValue = SchemaArgs.DEFAULT_CATALOG, converter = SchemaArgs.CatalogNameConverter.class,
      description = "Catalog (default: ${DEFAULT-VALUE}).")
  String catalog;

  @Option(names = "--namespace", description = "Only this namespace (levels separated by dots, or a JSON array of them: '[\"x.y\"]').")
  String namespace;

  @Option(names = "--name", description = "Only this table or view name.")
  String name;

  @Option(names = "--state", description = "Only this state: PENDING, RUNNING, SUCCEEDED, FAILED, CANCELLED, ABANDONED.")
  String state;

  @Option(names = "--limit", description = "Jobs per page, 1..10000 (default: the server's, 1000).")
  Integer limit;

  @Option(names = "--page-token", paramLabel = "TOKEN",
      description = "Continue a listing: the token printed after the previous page.")
  String pageToken;

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    CatalogServer.Answer answer;
    try {
      answer = server.send("GET", server.catalogPath(catalog) + "/cleanups" + query());
    } catch (CatalogServer.Failure f) {
      err.println("lethe catalog jobs: " + f.getMessage());
      return f.exitCode;
    }
    if (answer.status() != 200) {
      err.println("lethe catalog jobs: " + answer.errorMessage());
      return answer.status() == 400 ? 2 : 1;
    }
    print(spec.commandLine().getOut(), answer.body().path("cleanups"));
    JsonNode next = answer.body().path("nextPageToken");
    if (next.isTextual()) {
      // on stderr, so stdout stays one table a script can read
      err.println("lethe catalog jobs: more jobs: run again with --page-token " + next.asText());
    }
    return 0;
  }

  private String query() {
    List<String> params = new ArrayList<>();
    if (namespace != null) {
      params.add("namespace=" + CatalogServer.encode(namespace));
    }
    if (name != null) {
      params.add("name=" + CatalogServer.encode(name));
    }
    if (state != null) {
      params.add("state=" + CatalogServer.encode(state));
    }
    if (limit != null) {
      params.add("limit=" + limit);
    }
    if (pageToken != null) {
      params.add("pageToken=" + CatalogServer.encode(pageToken));
    }
    return params.isEmpty() ? "" : "?" + String.join("&", params);
  }

  static void print(PrintWriter out, JsonNode jobs) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"ID", "TYPE", "NAMESPACE", "NAME", "STATE", "ATTEMPTS", "CREATED_BY", "UPDATED", "PHASE",
        "FILES", "BYTES", "OWNER", "LEASE_AGE_MS", "STALE", "LAST_ERROR", "ENDED_BY", "ENDED", "END_REASON"});
    for (JsonNode j : jobs) {
      List<String> levels = new ArrayList<>();
      j.path("namespace").forEach(l -> levels.add(l.asText()));
      rows.add(new String[] {
          j.path("id").asText(), j.path("objectType").asText(), CatalogServer.spell(levels), j.path("name").asText(),
          j.path("state").asText(), j.path("attempts").asText(), j.path("createdBy").asText(),
          Instant.ofEpochMilli(j.path("updatedAt").asLong()).toString(),
          // progress and lease (docs/design/0445-job-progress-and-receipts.md); "≥" when sizes were unknown
          text(j.path("phase")), j.path("filesDeleted").asText("0"),
          (j.path("bytesLowerBound").asBoolean() ? ">=" : "") + j.path("bytesDeleted").asText("0"),
          j.path("owner").isObject() ? j.path("owner").path("host").asText() + ":" + j.path("owner").path("pid").asText() : "",
          text(j.path("leaseAgeMs")), j.path("stale").asBoolean() ? "stale" : "",
          j.path("lastError").isNull() ? "" : j.path("lastError").asText().replace('\n', ' '),
          // an operator's abandon or rescue (docs/design/0443-abandon-and-rescue.md)
          text(j.path("endedBy")),
          j.path("endedAt").isNumber() ? Instant.ofEpochMilli(j.path("endedAt").asLong()).toString() : "",
          text(j.path("endReason")).replace('\n', ' ')});
    }
    TextTable.print(out, rows);
  }

  private static String text(JsonNode n) {
    return n.isMissingNode() || n.isNull() ? "" : n.asText();
  }
}
