package dev.lethe.cli.catalog;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code lethe catalog jobs retry|run-now|abandon|rescue [--catalog CATALOG] [--reason TEXT] ID}: an
 * admin's action on one cleanup job (abandon and rescue: docs/design/0443-abandon-and-rescue.md), {@code POST /api/metalakes/{m}/catalogs/{c}/cleanups/{id}/{action}} of a running server
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

  /** The body sent, null for none: abandon and rescue send {@code {"reason": …}}. */
  String body() {
    return null;
  }

  @Override
  public Integer call() {
    String action = spec.name();
    // options written before the action are the listing's (lethe catalog jobs --server URL retry 7):
    // the action would drop them and act on the default server, so they are refused
    CommandLine jobs = spec.commandLine().getParent();
    if (jobs != null && jobs.getParseResult() != null && !jobs.getParseResult().matchedOptions().isEmpty()) {
      String given = jobs.getParseResult().matchedOptions().stream().map(o -> o.longestName())
          .collect(java.util.stream.Collectors.joining(" "));
      throw new CommandLine.ParameterException(spec.commandLine(), "Invalid options before '" + action + "': " + given
          + " (the listing's); write them after it: lethe catalog jobs " + action + " " + given + " ... ID");
    }
    if (id < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), "Invalid ID: expected a positive integer, got " + id);
    }
    String body = body();
    CatalogServer.Answer answer;
    try {
      String path = server.catalogPath(catalog) + "/cleanups/" + id + "/" + action;
      answer = body == null ? server.accepted("POST", path) : server.acceptedWith("POST", path, body);
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

  /** {@code lethe catalog jobs abandon --reason TEXT ID}. */
  @Command(name = "abandon", mixinStandardHelpOptions = true,
      footerHeading = "%nExit codes:%n",
      footer = {"  0  ok", "  1  refused (401, 403, 404, 409) or server unreachable or failing",
          "  2  bad argument (no --reason, or longer than 1024 characters), or a 400 answer"},
      description = "Admin: end a FAILED cleanup job ABANDONED after removing its leftover files by hand; "
          + "a soft-deleted table's record is finalized and the name is free.")
  static final class Abandon extends CatalogJobActionCommand {
    @Option(names = "--reason", required = true, paramLabel = "TEXT",
        description = "What was done about the files (kept on the job; 1..1024 characters).")
    String reason;

    @Override
    String body() {
      if (reason.isBlank() || reason.strip().length() > 1024) {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "Invalid --reason: expected 1..1024 characters, got " + reason.strip().length());
      }
      return com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode().put("reason", reason).toString();
    }
  }

  /** {@code lethe catalog jobs rescue [--reason TEXT] ID}. */
  @Command(name = "rescue", mixinStandardHelpOptions = true,
      footerHeading = "%nExit codes:%n",
      footer = {"  0  ok", "  1  refused (401, 403, 404, 409: wrong state, a file gone, the name taken) or server "
          + "unreachable or failing", "  2  bad argument, or a 400 answer"},
      description = "Admin: cancel a PENDING (or FAILED, nothing deleted) cleanup job and put its table back at its name.")
  static final class Rescue extends CatalogJobActionCommand {
    @Option(names = "--reason", paramLabel = "TEXT", description = "Why (kept on the job; at most 1024 characters).")
    String reason;

    @Override
    String body() {
      if (reason != null && reason.strip().length() > 1024) {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "Invalid --reason: expected at most 1024 characters, got " + reason.strip().length());
      }
      return com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode().put("reason", reason).toString();
    }
  }
}
