package dev.lethe.cli.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * What the commands that name a table, view or namespace by {@code KIND NAME} share (hold, release,
 * protect, unprotect): the server and catalog options, NAME dotted or as the exact JSON-array
 * spelling (docs/design/0441-drop-protection.md "Exact names"), the PUT body and the DELETE query
 * of {@code …/holds} and {@code …/protections}. A bad KIND or NAME is exit 2.
 */
abstract class NamedTarget implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Mixin CatalogServer server;

  @Option(names = "--catalog", defaultValue = SchemaArgs.DEFAULT_CATALOG, converter = SchemaArgs.CatalogNameConverter.class,
      description = "Catalog (default: ${DEFAULT-VALUE}).")
  String catalog;

  @Parameters(index = "1", paramLabel = "NAME", description = "Dotted name: sales.orders, or sales for a namespace; "
      + "or a JSON array of the levels, exact when a level contains a dot: '[\"x.y\",\"t\"]'.")
  String name;

  /** KIND in lower case, after {@link #resolve}. */
  String kind;
  /** The namespace's levels (a namespace's own for KIND namespace), after {@link #resolve}. */
  List<String> namespace;
  /** The table's or view's name; null for a namespace. */
  String entry;

  /**
   * Checks KIND against {@code kinds} and splits NAME.
   *
   * @throws CommandLine.ParameterException (exit 2) a KIND not in {@code kinds} or a NAME no object can have
   */
  void resolve(String rawKind, List<String> kinds) {
    kind = rawKind.toLowerCase(Locale.ROOT);
    if (!kinds.contains(kind)) {
      throw new CommandLine.ParameterException(spec.commandLine(), "Invalid KIND: expected "
          + String.join(", ", kinds.subList(0, kinds.size() - 1)) + " or " + kinds.get(kinds.size() - 1) + ", got " + kind);
    }
    List<String> levels;
    try {
      levels = CatalogServer.levels(name);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), "Invalid NAME: " + e.getMessage());
    }
    if (levels.stream().anyMatch(String::isEmpty) || (!kind.equals("namespace") && levels.size() < 2)) {
      throw new CommandLine.ParameterException(spec.commandLine(), "Invalid NAME: expected "
          + (kind.equals("namespace") ? "namespace levels separated by dots" : "NAMESPACE.NAME")
          + " or a JSON array of the levels, got '" + name + "'");
    }
    namespace = kind.equals("namespace") ? levels : levels.subList(0, levels.size() - 1);
    entry = kind.equals("namespace") ? null : levels.get(levels.size() - 1);
  }

  /** The PUT body: {@code {"kind", "namespace": [levels], "name" (not for a namespace), "reason"}}. */
  ObjectNode body(String reason) {
    ObjectNode body = JSON.createObjectNode();
    body.put("kind", kind);
    ArrayNode ns = body.putArray("namespace");
    namespace.forEach(ns::add);
    if (entry != null) {
      body.put("name", entry);
    }
    body.put("reason", reason);
    return body;
  }

  /** The DELETE query naming the object, the namespace in its exact JSON-array spelling. */
  String query() {
    return "?kind=" + kind + "&namespace=" + CatalogServer.encode(JSON.valueToTree(namespace).toString())
        + (entry == null ? "" : "&name=" + CatalogServer.encode(entry));
  }

  /** Prints {@code lethe catalog <command>: <message>} on stderr; returns the failure's exit code. */
  int fail(String command, CatalogServer.Failure f) {
    spec.commandLine().getErr().println("lethe catalog " + command + ": " + f.getMessage());
    return f.exitCode;
  }

  /** The NAME of a listed hold or protection, in the spelling {@link CatalogServer#spell} gives. */
  static String spelled(JsonNode row) {
    List<String> levels = new ArrayList<>();
    row.path("namespace").forEach(l -> levels.add(l.asText()));
    if (!row.path("name").isNull() && !row.path("name").isMissingNode()) {
      levels.add(row.path("name").asText());
    }
    return CatalogServer.spell(levels);
  }
}
