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
import picocli.CommandLine.Parameters;

/**
 * {@code lethe catalog receipt [--catalog CATALOG] ID}: prints the receipt of an ended cleanup job,
 * from {@code GET /api/metalakes/{m}/catalogs/{c}/cleanups/{id}/receipt} of a running server
 * (docs/design/0445-job-progress-and-receipts.md; docs/purge.md "Receipts"): who asked, which path,
 * timings, then one line per kind of file deleted, per reason of files kept, and the leftovers.
 *
 * <p>Exit codes, as every {@code lethe catalog} command: 0 printed; 1 refused (401, 403, 404: no
 * receipt) or the server unreachable or failing; 2 a bad argument or a 400 answer. One line on stderr.
 */
@Command(name = "receipt", mixinStandardHelpOptions = true,
    footerHeading = "%nExit codes:%n",
    footer = {"  0  ok", "  1  refused (401, 403, 404) or server unreachable or failing", "  2  bad argument, or a 400 answer"},
    description = "Print the receipt of an ended cleanup job: who asked, how, when, what was deleted, kept, left over.")
final class CatalogReceiptCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Mixin CatalogServer server;

  @Option(names = "--catalog", defaultValue = SchemaArgs.DEFAULT_CATALOG, converter = SchemaArgs.CatalogNameConverter.class,
      description = "Catalog (default: ${DEFAULT-VALUE}).")
  String catalog;

  @Parameters(index = "0", paramLabel = "ID", description = "The cleanup job's id (the ID column of lethe catalog jobs).")
  long id;

  @Override
  public Integer call() {
    if (id < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), "Invalid ID: expected a positive integer, got " + id);
    }
    PrintWriter err = spec.commandLine().getErr();
    CatalogServer.Answer answer;
    try {
      answer = server.send("GET", server.catalogPath(catalog) + "/cleanups/" + id + "/receipt");
    } catch (CatalogServer.Failure f) {
      err.println("lethe catalog receipt: " + f.getMessage());
      return f.exitCode;
    }
    if (answer.status() != 200) {
      err.println("lethe catalog receipt: " + answer.errorMessage());
      return answer.status() == 400 ? 2 : 1;
    }
    PrintWriter out = spec.commandLine().getOut();
    print(out, answer.body());
    out.flush();
    return 0;
  }

  static void print(PrintWriter out, JsonNode r) {
    List<String> levels = new ArrayList<>();
    r.path("namespace").forEach(l -> levels.add(l.asText()));
    out.println("job " + r.path("jobId").asText() + " (receipt " + r.path("receiptId").asText() + "): "
        + r.path("objectType").asText() + " " + String.join(".", levels) + "." + r.path("name").asText() + " "
        + r.path("state").asText());
    out.println("asked by " + r.path("createdBy").asText() + " via " + r.path("purgePath").asText("UNKNOWN"));
    out.println("created " + time(r.path("createdAt")) + ", first claimed " + time(r.path("firstClaimedAt"))
        + ", ended " + time(r.path("endedAt")) + " (" + r.path("durationMs").asText() + " ms), attempts "
        + r.path("attempts").asText());
    out.println("deleted " + r.path("filesDeleted").asText() + " files, " + (r.path("bytesLowerBound").asBoolean()
        ? "at least " : "") + r.path("bytesDeleted").asText() + " bytes");
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"KIND", "FILES", "BYTES", "UNKNOWN_SIZES"});
    r.path("deleted").fields().forEachRemaining(e -> rows.add(new String[] {e.getKey(),
        e.getValue().path("files").asText(), e.getValue().path("bytes").asText(),
        e.getValue().path("unknownSizes").asText()}));
    TextTable.print(out, rows);
    out.println("kept " + r.path("keptFiles").asText() + " files");
    r.path("kept").fields().forEachRemaining(e -> out.println("  " + e.getKey() + ": " + e.getValue().path("count").asText()
        + sample(e.getValue())));
    out.println("left over " + r.path("leftovers").path("count").asText() + " files" + sample(r.path("leftovers")));
    if (r.path("lastError").isTextual()) {
      out.println("last error: " + r.path("lastError").asText().replace('\n', ' '));
    }
    if (r.path("endedBy").isTextual()) {
      out.println("ended by " + r.path("endedBy").asText() + (r.path("endReason").isTextual()
          ? ": " + r.path("endReason").asText().replace('\n', ' ') : ""));
    }
  }

  private static String sample(JsonNode s) {
    List<String> paths = new ArrayList<>();
    s.path("sample").forEach(p -> paths.add(p.asText()));
    return paths.isEmpty() ? "" : " (e.g. " + String.join(", ", paths) + ")";
  }

  private static String time(JsonNode ms) {
    return ms.isNumber() ? Instant.ofEpochMilli(ms.asLong()).toString() : "-";
  }
}
