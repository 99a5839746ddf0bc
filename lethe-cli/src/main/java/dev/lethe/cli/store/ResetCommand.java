package dev.lethe.cli.store;

import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.reset.Reset;
import dev.lethe.store.core.reset.ResetReport;
import java.io.PrintWriter;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code lethe store reset}: tombstones every live record of a namespace or collection. */
@Command(name = "reset", mixinStandardHelpOptions = true,
    description = {"Delete every live record of a namespace (or collection) by conditional deletes.",
        "Prints 'N deleted, M conflicts'. Records edited meanwhile are conflicts:",
        "one 'conflict: ns/col/id' line each on stderr, then a re-run hint; exit 3.",
        "Re-running is safe."},
    footerHeading = "%nExit codes:%n", footer = {"  0  ok", "  1  error", "  2  usage", "  3  conflict"})
final class ResetCommand extends StoreSubcommand {

  @Option(names = "--namespace", paramLabel = "NS", description = "Namespace to reset (required).") String namespace;
  @Option(names = "--collection", paramLabel = "COL", description = "Only this collection.") String collection;

  @Override
  int execute(PrintWriter out, PrintWriter err) {
    if (namespace == null) {
      throw new UsageException(collection == null ? "missing --namespace" : "--collection needs --namespace");
    }
    KeyPrefix prefix = prefix(namespace, collection);
    Store store = openStore(cap());
    ResetReport report;
    try (TerminalProgress progress = TerminalProgress.forConsole(err, "reset")) {
      report = Reset.run(store, prefix, Optional.of(CLI_AUTHOR), progress);
    }
    for (RecordKey k : report.conflicts()) {
      err.println("conflict: " + k);
    }
    int m = report.conflicts().size();
    out.println(report.deleted() + " deleted, " + m + " conflicts");
    if (m > 0) {
      out.flush();
      err.println("re-run `lethe store reset` to delete the " + m + " conflicted record(s)");
      return ExitCode.CONFLICT;
    }
    return ExitCode.OK;
  }
}
