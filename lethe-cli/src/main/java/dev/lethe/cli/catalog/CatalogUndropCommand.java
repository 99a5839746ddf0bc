package dev.lethe.cli.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code lethe catalog undrop [--catalog CATALOG] NAMESPACE TABLE}: restores a soft-deleted table with {@code POST
 * /api/metalakes/{m}/catalogs/{c}/schemas/{s}/tables/{t}/undrop} of a running server
 * (docs/soft-delete.md). On success prints {@code undropped: CATALOG.NAMESPACE.TABLE (entity id ID)}.
 *
 * <p>Exit codes: 0 restored; 1 refused (404 no retained deletion, or a live table; 410 the deadline
 * passed or a purge owns it; 401/403), server unreachable or failing; 2 bad argument or a 400 answer.
 * A failure is one line on stderr and changes nothing.
 */
@Command(name = "undrop", mixinStandardHelpOptions = true,
    footerHeading = "%nExit codes:%n",
    footer = {"  0  ok", "  1  refused (401, 403, 404, 409, 410) or server unreachable or failing",
        "  2  bad argument, or a 400 answer"},
    description = "Restore a dropped table that soft deletion still retains (same table id, metadata and files).")
final class CatalogUndropCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Mixin CatalogServer server;

  @Mixin SchemaArgs schema;

  @Override
  public Integer call() {
    String path = server.tableActionPath(spec, schema, "undrop");
    JsonNode body;
    try {
      body = server.ok("POST", path);
    } catch (CatalogServer.Failure f) {
      spec.commandLine().getErr().println("lethe catalog undrop: " + f.getMessage());
      return f.exitCode;
    }
    List<String> levels = new ArrayList<>();
    body.path("namespace").forEach(l -> levels.add(l.asText()));
    PrintWriter out = spec.commandLine().getOut();
    out.println("undropped: " + schema.catalog + "." + String.join(".", levels) + "." + body.path("name").asText()
        + " (entity id " + body.path("entityId").asText() + ")");
    out.flush();
    return 0;
  }
}
