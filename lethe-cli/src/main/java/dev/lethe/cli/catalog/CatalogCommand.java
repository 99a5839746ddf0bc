package dev.lethe.cli.catalog;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code lethe catalog}: commands that talk over HTTP to a running Lethe server (docs/design/0200-catalog-architecture.md "CLI").
 */
@Command(name = "catalog", mixinStandardHelpOptions = true,
    footerHeading = "%nExit codes:%n",
    footer = {"  0  ok", "  1  refused (401, 403, 404, 409, 410) or server unreachable or failing",
        "  2  bad argument, or a 400 answer"},
    description = "Inspect and manage a running Lethe catalog server: cleanup jobs and their receipts, soft-deleted tables, purge previews, drop protection, legal holds (each takes --catalog, default main).",
    subcommands = {CatalogJobsCommand.class, CatalogReceiptCommand.class, CatalogDeletedCommand.class, CatalogUndropCommand.class,
        CatalogPurgeNowCommand.class, CatalogPreviewCommand.class, CatalogProtectionCommands.Protect.class,
        CatalogProtectionCommands.Unprotect.class, CatalogProtectionCommands.Protections.class,
        CatalogHoldCommands.Hold.class, CatalogHoldCommands.Release.class, CatalogHoldCommands.Holds.class})
public final class CatalogCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(),
        "missing command (jobs, deleted, undrop, purge-now, preview, protect, unprotect, protections)");
  }
}
