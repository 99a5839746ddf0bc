package dev.lethe.cli;

import dev.lethe.cli.store.StoreFailures;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code lethe} command: the entry point of the shaded jar and of {@code bin/lethe}.
 *
 * <p>Exit codes (docs/design/0200-catalog-architecture.md "CLI"): 0 ok, 1 error, 2 usage, 3 conflict.
 */
@Command(
    name = "lethe",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = "Safe, fast, recoverable deletion: an Iceberg REST catalog and a replicated record store.",
    subcommands = {ServerCommand.class, dev.lethe.cli.store.StoreCommand.class, dev.lethe.cli.catalog.CatalogCommand.class, CommandLine.HelpCommand.class},
    footerHeading = "%nExit codes:%n",
    footer = {"  0  ok", "  1  error", "  2  usage", "  3  conflict"})
public final class LetheCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "Missing command (server, store, catalog)");
  }

  /** Builds the picocli command line with Lethe's exit-code mapping (usage errors exit 2). */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new LetheCommand());
    // every command's --version (picocli gives each -V with mixinStandardHelpOptions) prints what
    // `lethe --version` prints; without a provider of its own a subcommand printed an empty line
    withVersion(cl, new VersionProvider());
    // a usage error is one line on stderr and exit 2, never a usage screen
    StoreFailures store = new StoreFailures((ex, args) -> {
      CommandLine failed = ex.getCommandLine();
      failed.getErr().println(failed.getCommandSpec().qualifiedName() + ": " + ex.getMessage()
          + " (try '" + failed.getCommandSpec().qualifiedName() + " --help')");
      return 2;
    });
    cl.setParameterExceptionHandler(store);
    // a store subcommand's failure is one line and its exit code (StoreFailures' table)
    cl.setExecutionExceptionHandler(store);
    return cl;
  }

  private static void withVersion(CommandLine cl, CommandLine.IVersionProvider version) {
    cl.getCommandSpec().versionProvider(version);
    cl.getSubcommands().values().forEach(sub -> withVersion(sub, version));
  }

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }
}
