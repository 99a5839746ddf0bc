package dev.lethe.cli.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code lethe catalog deleted [--catalog CATALOG] NAMESPACE}: prints the tables of a namespace that soft
 * deletion retains, with the time left to undrop each, from {@code GET
 * /api/metalakes/{m}/catalogs/{c}/schemas/{s}/tables?deleted=true} of a running server
 * (docs/soft-delete.md).
 *
 * <p>Exit codes: 0 listed (also when none is retained), 1 refused (401, 403, 404 unknown catalog or
 * namespace), server unreachable or failing, 2 bad argument or a 400 answer. A failure is one line on
 * stderr.
 */
@Command(name = "deleted", mixinStandardHelpOptions = true,
    footerHeading = "%nExit codes:%n",
    footer = {"  0  ok", "  1  refused (401, 403, 404, 409, 410) or server unreachable or failing",
        "  2  bad argument, or a 400 answer"},
    description = "List the dropped tables of a namespace that soft deletion retains, with the time left to undrop them.")
final class CatalogDeletedCommand implements Callable<Integer> {
  static final String[] HEADER = {"NAME", "ENTITY_ID", "DELETED_AT", "EXPIRES_AT", "TIME_LEFT", "DELETED_BY",
      "PURGE_REQUESTED", "RECOVERABLE", "STATE", "PURGE_JOB"};

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Mixin CatalogServer server;

  @Mixin SchemaArgs schema;

  /** The clock the time left is measured on; the server's {@code recoverable} decides when it disagrees. */
  Clock clock = Clock.systemUTC();

  @Override
  public Integer call() {
    String path = server.tablesPath(spec, schema, false) + "?deleted=true";
    try {
      print(spec.commandLine().getOut(), server.ok("GET", path).path("deleted"), clock.millis());
      return 0;
    } catch (CatalogServer.Failure f) {
      spec.commandLine().getErr().println("lethe catalog deleted: " + f.getMessage());
      return f.exitCode;
    }
  }

  /** Prints the {@code deleted} array of the list route as a table, times in UTC, time left from {@code now} (ms since epoch). */
  static void print(PrintWriter out, JsonNode deleted, long now) {
    List<String[]> rows = new ArrayList<>();
    rows.add(HEADER);
    for (JsonNode d : deleted) {
      long expiresAt = d.path("retentionExpiresAt").asLong();
      String state = d.path("state").asText();
      boolean recoverable = d.path("recoverable").asBoolean();
      // a legal hold keeps it past its deadline: no time runs out (docs/design/0444-legal-holds.md)
      boolean held = d.path("held").asBoolean() && "DELETED".equals(state);
      rows.add(new String[] {
          d.path("name").asText(), d.path("entityId").asText(), utc(d.path("deletedAt").asLong()), utc(expiresAt),
          held ? "held" : timeLeft(expiresAt, now, recoverable, state), d.path("deletedBy").asText(),
          String.valueOf(d.path("purgeRequested").asBoolean()), String.valueOf(recoverable), state,
          d.path("purgeJobState").asText("-")});
    }
    TextTable.print(out, rows);
  }

  private static String utc(long millis) {
    return Instant.ofEpochMilli(millis).truncatedTo(ChronoUnit.SECONDS).toString();
  }

  /**
   * What the {@code TIME_LEFT} column shows: for a recoverable deletion the time until its deadline
   * ({@code 2d 3h}, {@code 23h 59m}, {@code 4m 10s}, {@code 9s}; {@code 0s} if this clock is ahead
   * of the database's); {@code expired} once the deadline passed (or the server says it is no longer
   * recoverable while {@code DELETED}); {@code -} when a purge owns it before its deadline (admin
   * purge-now). A {@code DELETED} one a legal hold covers shows {@code held} instead (see {@link #print}).
   *
   * @param expiresAt the deadline, ms since epoch
   * @param now this clock, ms since epoch
   */
  static String timeLeft(long expiresAt, long now, boolean recoverable, String state) {
    if (!recoverable) {
      return "DELETED".equals(state) || now >= expiresAt ? "expired" : "-";
    }
    long s = Math.max(0, expiresAt - now) / 1000;
    long days = s / 86_400;
    long hours = s % 86_400 / 3600;
    long minutes = s % 3600 / 60;
    if (days > 0) {
      return days + "d " + hours + "h";
    }
    if (hours > 0) {
      return hours + "h " + minutes + "m";
    }
    if (minutes > 0) {
      return minutes + "m " + s % 60 + "s";
    }
    return s + "s";
  }
}
