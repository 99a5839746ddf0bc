package dev.lethe.cli.catalog;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code lethe catalog jobs retry|run-now [--catalog CATALOG] ID}: an admin's action on one cleanup
 * job, {@code POST /api/metalakes/{m}/catalogs/{c}/cleanups/{id}/{action}} of a running server
 * (docs/design/0440-job-control.md; docs/purge.md "Job control"). Prints the job as it now is, as
 * one row of the {@code lethe catalog jobs} table.
 *
 * <p>Exit codes, as every {@code lethe catalog} command: 0 done; 1 refused (401, 403, 404 unknown
 * job, 409 the job's state does not allow it) or the server unreachable or failing; 2 a bad
 * argument (an ID that is not a positive integer) or a 400 answer. A failure is one line on stderr.
 */
abstract class CatalogJobActionCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Mixin CatalogServer server;

  @Option(names = "--catalog", defaultValue = SchemaArgs.DEFAULT_CATALOG, converter = SchemaArgs.CatalogNameConverter.class,
      description = "Catalog (default: ${DEFAULT-VALUE}).")
  String catalog;

  @Parameters(index = "0", paramLabel = "ID", description = "The cleanup job's id (the ID column of lethe catalog jobs).")
  long id;

  @Override
  public Integer call() {
    String action = spec.name();
    if (id < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), "Invalid ID: expected a positive integer, got " + id);
    }
    CatalogServer.Answer answer;
    try {
      answer = server.accepted("POST", server.catalogPath(catalog) + "/cleanups/" + id + "/" + action);
    } catch (CatalogServer.Failure f) {
      spec.commandLine().getErr().println("lethe catalog jobs " + action + ": " + f.getMessage());
      return f.exitCode;
    }
    PrintWriter out = spec.commandLine().getOut();
    CatalogJobsCommand.print(out, com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.arrayNode().add(answer.body()));
    out.flush();
    return 0;
  }

  /** {@code lethe catalog jobs retry ID}. */
  @Command(name = "retry", mixinStandardHelpOptions = true,
      footerHeading = "%nExit codes:%n",
      footer = {"  0  ok", "  1  refused (401, 403, 404, 409) or server unreachable or failing",
          "  2  bad argument, or a 400 answer"},
      description = "Admin: put a FAILED cleanup job back to PENDING (attempts reset, no backoff); fix the cause first.")
  static final class Retry extends CatalogJobActionCommand {}

  /** {@code lethe catalog jobs run-now ID}. */
  @Command(name = "run-now", mixinStandardHelpOptions = true,
      footerHeading = "%nExit codes:%n",
      footer = {"  0  ok", "  1  refused (401, 403, 404, 409) or server unreachable or failing",
          "  2  bad argument, or a 400 answer"},
      description = "Admin: let a PENDING cleanup job waiting out its retry backoff run now.")
  static final class RunNow extends CatalogJobActionCommand {}
}
