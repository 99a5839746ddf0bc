package dev.lethe.cli.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code lethe catalog hold|release KIND NAME} and {@code lethe catalog holds}: legal holds over
 * {@code …/catalogs/{c}/holds} of a running server (docs/design/0444-legal-holds.md; docs/catalog.md
 * "Legal holds"). {@code KIND} is {@code table} or {@code namespace}; {@code NAME} is dotted. Exit
 * codes as every {@code lethe catalog} command: 0 done; 1 refused (401, 403, 404) or the server
 * unreachable or failing; 2 a bad argument or a 400 answer.
 */
final class CatalogHoldCommands {
  private static final ObjectMapper JSON = new ObjectMapper();

  private CatalogHoldCommands() {}

  /** KIND for hold and release. */
  abstract static class Target extends NamedTarget {
    @Parameters(index = "0", paramLabel = "KIND", description = "table or namespace.")
    String kindArg;

    void resolve() {
      resolve(kindArg, List.of("table", "namespace"));
    }
  }

  /** {@code lethe catalog hold KIND NAME --reason R [--until T]}. */
  @Command(name = "hold", mixinStandardHelpOptions = true, footerHeading = "%nExit codes:%n", footer = {
      "  0  ok", "  1  refused (401, 403, 404) or server unreachable or failing", "  2  bad argument, or a 400 answer"},
      description = "Admin: place a legal hold on a table or namespace: no purge deletes its files until released.")
  static final class Hold extends Target {
    @Option(names = "--reason", required = true, description = "Why (required; kept in the audit).")
    String reason;

    @Option(names = "--until", description = "When the hold ends: ms since epoch or an ISO-8601 instant (default: until released).")
    String until;

    @Override
    public Integer call() {
      resolve();
      ObjectNode body = body(reason);
      if (until != null) {
        try {
          body.put("expiresAt", untilMillis(until));
        } catch (IllegalArgumentException e) {
          throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
      }
      CatalogServer.Answer answer;
      try {
        answer = server.send("PUT", server.catalogPath(catalog) + "/holds", body.toString());
        if (answer.status() != 200) {
          throw new CatalogServer.Failure(answer.status() == 400 ? 2 : 1, answer.errorMessage());
        }
      } catch (CatalogServer.Failure f) {
        return fail("hold", f);
      }
      PrintWriter out = spec.commandLine().getOut();
      print(out, JSON.createArrayNode().add(answer.body()));
      List<String> running = new ArrayList<>();
      answer.body().path("runningPurges").forEach(j -> running.add(j.asText()));
      if (!running.isEmpty()) {
        // docs/design/0444-legal-holds.md: such a purge may have deleted files before the hold
        out.println("purges running as the hold was placed (some files may be gone already): jobs "
            + String.join(", ", running));
      }
      out.flush();
      return 0;
    }
  }

  /**
   * {@code --until} as ms since epoch: a whole number of ms, or an ISO-8601 instant. Whether it is in
   * the future is the server's check (on the database clock).
   *
   * @throws IllegalArgumentException on anything else, or a number or instant outside a long of ms
   */
  static long untilMillis(String until) {
    try {
      return until.matches("[0-9]+") ? Long.parseLong(until) : Instant.parse(until).toEpochMilli();
    } catch (DateTimeParseException | ArithmeticException | NumberFormatException e) {
      throw new IllegalArgumentException("Invalid --until: expected ms since epoch or an ISO-8601 instant "
          + "(e.g. 2027-01-31T00:00:00Z), got '" + until + "'");
    }
  }

  /** {@code lethe catalog release KIND NAME}. */
  @Command(name = "release", mixinStandardHelpOptions = true, footerHeading = "%nExit codes:%n", footer = {
      "  0  ok", "  1  refused (401, 403, 404 no such hold) or server unreachable or failing",
      "  2  bad argument, or a 400 answer"},
      description = "Admin: release the legal hold on a table or namespace (kept in the audit).")
  static final class Release extends Target {
    @Override
    public Integer call() {
      resolve();
      CatalogServer.Answer answer;
      try {
        answer = server.send("DELETE", server.catalogPath(catalog) + "/holds" + query());
        if (answer.status() != 200) {
          throw new CatalogServer.Failure(answer.status() == 400 ? 2 : 1, answer.errorMessage());
        }
      } catch (CatalogServer.Failure f) {
        return fail("release", f);
      }
      PrintWriter out = spec.commandLine().getOut();
      print(out, answer.body().path("released"));
      out.flush();
      return 0;
    }
  }

  /** {@code lethe catalog holds [--released]}. */
  @Command(name = "holds", mixinStandardHelpOptions = true, footerHeading = "%nExit codes:%n", footer = {
      "  0  ok", "  1  refused (401, 403, 404) or server unreachable or failing", "  2  bad argument, or a 400 answer"},
      description = "List the catalog's legal holds (with --released also the released ones: the audit).")
  static final class Holds implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Mixin CatalogServer server;

    @Option(names = "--catalog", defaultValue = SchemaArgs.DEFAULT_CATALOG, converter = SchemaArgs.CatalogNameConverter.class,
        description = "Catalog (default: ${DEFAULT-VALUE}).")
    String catalog;

    @Option(names = "--released", description = "Also list released holds (who released them and when).")
    boolean released;

    @Override
    public Integer call() {
      JsonNode body;
      try {
        body = server.ok("GET", server.catalogPath(catalog) + "/holds" + (released ? "?include=released" : ""));
      } catch (CatalogServer.Failure f) {
        spec.commandLine().getErr().println("lethe catalog holds: " + f.getMessage());
        return f.exitCode;
      }
      PrintWriter out = spec.commandLine().getOut();
      print(out, body.path("holds"));
      out.flush();
      return 0;
    }
  }

  static void print(PrintWriter out, JsonNode holds) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"ID", "KIND", "NAME", "PLACED_BY", "PLACED_AT", "EXPIRES_AT", "RELEASED_BY", "RELEASED_AT",
        "REASON"});
    for (JsonNode h : holds) {
      rows.add(new String[] {h.path("id").asText(), h.path("kind").asText(), NamedTarget.spelled(h),
          h.path("placedBy").asText(), time(h.path("placedAt")), time(h.path("expiresAt")),
          h.path("releasedBy").isTextual() ? h.path("releasedBy").asText() : "-", time(h.path("releasedAt")),
          h.path("reason").asText().replace('\n', ' ')});
    }
    TextTable.print(out, rows);
  }

  private static String time(JsonNode ms) {
    return ms.isNumber() ? Instant.ofEpochMilli(ms.asLong()).toString() : "-";
  }
}
