package dev.lethe.cli.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
 * {@code lethe catalog protect|unprotect KIND NAME} and {@code lethe catalog protections}: drop
 * protection over {@code …/catalogs/{c}/protections} of a running server
 * (docs/design/0441-drop-protection.md; docs/catalog.md "Protection"). {@code KIND} is {@code
 * table}, {@code view} or {@code namespace}; {@code NAME} is dotted ({@code sales.orders}; for a
 * namespace, its levels) or a JSON array of the levels ({@code ["x.y","t"]}), the exact spelling when
 * a level contains a dot; {@code protect} warns on stderr when the object does not exist now. Exit codes as every {@code lethe catalog} command: 0 done; 1 refused
 * (401, 403, 404) or the server unreachable or failing; 2 a bad argument or a 400 answer.
 */
final class CatalogProtectionCommands {
  private static final ObjectMapper JSON = new ObjectMapper();

  private CatalogProtectionCommands() {}

  /** KIND for protect and unprotect. */
  abstract static class Target extends NamedTarget {
    @Parameters(index = "0", paramLabel = "KIND", description = "table, view or namespace.")
    String kindArg;

    void resolve() {
      resolve(kindArg, List.of("table", "view", "namespace"));
    }
  }

  /** {@code lethe catalog protect KIND NAME [--reason R]}. */
  @Command(name = "protect", mixinStandardHelpOptions = true, footerHeading = "%nExit codes:%n", footer = {
      "  0  ok", "  1  refused (401, 403, 404) or server unreachable or failing", "  2  bad argument, or a 400 answer"},
      description = "Admin: protect a table, view or namespace from every drop, rename away and namespace drop.")
  static final class Protect extends Target {
    @Option(names = "--reason", defaultValue = "", description = "Why (kept and shown with the protection).")
    String reason;

    @Override
    public Integer call() {
      resolve();
      ObjectNode body = body(reason);
      CatalogServer.Answer answer;
      try {
        answer = server.send("PUT", server.catalogPath(catalog) + "/protections", body.toString());
        if (answer.status() != 200) {
          throw new CatalogServer.Failure(answer.status() == 400 ? 2 : 1, answer.errorMessage());
        }
      } catch (CatalogServer.Failure f) {
        return fail("protect", f);
      }
      PrintWriter out = spec.commandLine().getOut();
      print(out, JSON.createArrayNode().add(answer.body()));
      out.flush();
      if (answer.body().path("exists").isBoolean() && !answer.body().path("exists").asBoolean()) {
        // a typo, or a dotted NAME whose real namespace level contains a dot (docs/design/0441 "Exact names")
        ArrayNode levels = JSON.createArrayNode();
        namespace.forEach(levels::add);
        spec.commandLine().getErr().println("lethe catalog protect: warning: no " + kind + " " + name
            + " exists now (namespace " + levels + "); the protection covers it if it is created");
        spec.commandLine().getErr().flush();
      }
      return 0;
    }
  }

  /** {@code lethe catalog unprotect KIND NAME}. */
  @Command(name = "unprotect", mixinStandardHelpOptions = true, footerHeading = "%nExit codes:%n", footer = {
      "  0  ok", "  1  refused (401, 403, 404 no such protection) or server unreachable or failing",
      "  2  bad argument, or a 400 answer"},
      description = "Admin: clear the protection on a table, view or namespace.")
  static final class Unprotect extends Target {
    @Override
    public Integer call() {
      resolve();
      try {
        CatalogServer.Answer answer = server.send("DELETE", server.catalogPath(catalog) + "/protections" + query());
        if (answer.status() != 204) {
          throw new CatalogServer.Failure(answer.status() == 400 ? 2 : 1, answer.errorMessage());
        }
      } catch (CatalogServer.Failure f) {
        return fail("unprotect", f);
      }
      spec.commandLine().getOut().println("Unprotected " + kind + " " + name);
      spec.commandLine().getOut().flush();
      return 0;
    }
  }

  /** {@code lethe catalog protections}. */
  @Command(name = "protections", mixinStandardHelpOptions = true, footerHeading = "%nExit codes:%n", footer = {
      "  0  ok", "  1  refused (401, 403, 404) or server unreachable or failing", "  2  bad argument, or a 400 answer"},
      description = "List the catalog's drop protections.")
  static final class Protections implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Mixin CatalogServer server;

    @Option(names = "--catalog", defaultValue = SchemaArgs.DEFAULT_CATALOG, converter = SchemaArgs.CatalogNameConverter.class,
        description = "Catalog (default: ${DEFAULT-VALUE}).")
    String catalog;

    @Override
    public Integer call() {
      JsonNode body;
      try {
        body = server.ok("GET", server.catalogPath(catalog) + "/protections");
      } catch (CatalogServer.Failure f) {
        spec.commandLine().getErr().println("lethe catalog protections: " + f.getMessage());
        return f.exitCode;
      }
      PrintWriter out = spec.commandLine().getOut();
      print(out, body.path("protections"));
      out.flush();
      return 0;
    }
  }

  static void print(PrintWriter out, JsonNode protections) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"KIND", "NAME", "SET_BY", "SET_AT", "REASON"});
    for (JsonNode p : protections) {
      rows.add(new String[] {p.path("kind").asText(), NamedTarget.spelled(p), p.path("setBy").asText(),
          Instant.ofEpochMilli(p.path("setAt").asLong()).toString(), p.path("reason").asText().replace('\n', ' ')});
    }
    TextTable.print(out, rows);
  }
}
