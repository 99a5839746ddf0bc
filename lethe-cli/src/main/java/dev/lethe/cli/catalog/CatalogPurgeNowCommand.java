package dev.lethe.cli.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code lethe catalog purge-now [--catalog CATALOG] NAMESPACE TABLE}: an admin ends the restore
 * window of a soft-deleted table now, with {@code POST
 * /api/metalakes/{m}/catalogs/{c}/schemas/{s}/tables/{t}/purge} of a running server
 * (docs/soft-delete.md "Purge now"). On {@code 202} prints {@code purge started: CATALOG.NAMESPACE.TABLE
 * (entity id ID, cleanup job PENDING)}; on {@code 200} (dropped with {@code purgeRequested=false})
 * {@code purged: CATALOG.NAMESPACE.TABLE (entity id ID, entry removed, files kept)}. Sent again it
 * answers the same job.
 *
 * <p>Exit codes: 0 accepted; 1 refused (404 no retained deletion; 401, 403 not an admin), server
 * unreachable or failing; 2 bad argument or a 400 answer. A failure is one line on stderr.
 */
@Command(name = "purge-now", mixinStandardHelpOptions = true,
    footerHeading = "%nExit codes:%n",
    footer = {"  0  ok", "  1  refused (401, 403, 404, 409, 410) or server unreachable or failing",
        "  2  bad argument, or a 400 answer"},
    description = "Admin: end the restore window of a soft-deleted table now and purge it (no undrop afterwards).")
final class CatalogPurgeNowCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Mixin CatalogServer server;

  @Mixin SchemaArgs schema;

  @Override
  public Integer call() {
    String path = server.tableActionPath(spec, schema, "purge");
    CatalogServer.Answer answer;
    try {
      answer = server.accepted("POST", path);
    } catch (CatalogServer.Failure f) {
      spec.commandLine().getErr().println("lethe catalog purge-now: " + f.getMessage());
      return f.exitCode;
    }
    JsonNode body = answer.body();
    String table = schema.catalog + "." + schema.namespace + "." + body.path("name").asText(schema.table);
    PrintWriter out = spec.commandLine().getOut();
    if (answer.status() == 202) {
      out.println("purge started: " + table + " (entity id " + body.path("entityId").asText() + ", cleanup job "
          + body.path("purgeJobState").asText("-") + ")");
    } else {
      out.println("purged: " + table + " (entity id " + body.path("entityId").asText() + ", entry removed, files kept)");
    }
    out.flush();
    return 0;
  }
}
