package dev.lethe.cli.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code lethe catalog preview [--catalog CATALOG] NAMESPACE TABLE}: what a purge of the live table
 * (else of its retained soft deletion) would delete and keep now, with {@code GET
 * /api/metalakes/{m}/catalogs/{c}/schemas/{s}/tables/{t}/purge-preview} of a running server
 * (docs/purge.md "Preview"; docs/design/0442-purge-preview.md). Deletes nothing. Prints the table,
 * its state and roots, a table of files per kind, the files kept per reason with their sample
 * paths; {@code --json} prints the server's body as is.
 *
 * <p>Exit codes: 0 previewed (also when the purge would fail: the line {@code would fail: …});
 * 1 refused (401, 403, 404) or server unreachable or failing; 2 bad argument or a 400 answer.
 */
@Command(name = "preview", mixinStandardHelpOptions = true,
    footerHeading = "%nExit codes:%n",
    footer = {"  0  ok", "  1  refused (401, 403, 404) or server unreachable or failing",
        "  2  bad argument, or a 400 answer"},
    description = "What a purge of a live or soft-deleted table would delete and keep now (deletes nothing).")
final class CatalogPreviewCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Mixin CatalogServer server;

  @Mixin SchemaArgs schema;

  @CommandLine.Option(names = "--json", description = "Print the server's JSON body as is.")
  boolean json;

  @Override
  public Integer call() {
    String path = server.tableActionPath(spec, schema, "purge-preview");
    JsonNode body;
    try {
      body = server.ok("GET", path);
    } catch (CatalogServer.Failure f) {
      spec.commandLine().getErr().println("lethe catalog preview: " + f.getMessage());
      return f.exitCode;
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(body.toString());
      out.flush();
      return 0;
    }
    out.println("table: " + schema.catalog + "." + schema.namespace + "." + schema.table + " ("
        + body.path("state").asText() + ")");
    if (!body.path("wouldFail").isNull() && body.has("wouldFail")) {
      out.println("would fail: " + body.path("wouldFail").asText());
      out.flush();
      return 0;
    }
    out.println("roots: " + String.join(", ", texts(body.path("roots"))));
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"KIND", "FILES", "BYTES"});
    for (Map.Entry<String, JsonNode> e : (Iterable<Map.Entry<String, JsonNode>>) body.path("wouldDelete").path("kinds")::fields) {
      rows.add(new String[] {e.getKey(), e.getValue().path("files").asText(), e.getValue().path("bytes").asText()});
    }
    rows.add(new String[] {"total", body.path("wouldDelete").path("total").asText(),
        body.path("wouldDelete").path("bytes").asText()});
    out.println("would delete:");
    TextTable.print(out, rows);
    if (!body.path("wouldDelete").path("exact").asBoolean(true)) {
      out.println("(counted, not told file by file: more files than the preview remembers)");
    }
    if (body.path("alreadyGone").path("files").asLong() > 0) {
      out.println("already gone (named, not found): " + body.path("alreadyGone").path("files").asText());
    }
    out.println("would keep: " + body.path("wouldKeep").path("total").asText());
    for (Map.Entry<String, JsonNode> e : (Iterable<Map.Entry<String, JsonNode>>) body.path("wouldKeep").path("reasons")::fields) {
      out.println("  " + e.getKey() + ": " + e.getValue().path("files").asText());
      for (String s : texts(e.getValue().path("sample"))) {
        out.println("    " + s);
      }
    }
    out.flush();
    return 0;
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }
}
