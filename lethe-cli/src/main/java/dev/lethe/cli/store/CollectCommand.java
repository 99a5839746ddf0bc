package dev.lethe.cli.store;

import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.collect.Collect;
import dev.lethe.store.core.collect.CollectReport;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code lethe store collect}: purges tombstones older than a horizon. */
@Command(name = "collect", mixinStandardHelpOptions = true,
    description = {"Purge tombstones deleted at least --older-than ago.",
        "There is no default: choose a horizon longer than any peer stays offline,",
        "or that peer's next sync brings the record back.",
        "Unstamped tombstones are kept and counted.",
        "Conflicts (keys recreated meanwhile) exit 0."},
    footerHeading = "%nExit codes:%n", footer = {"  0  ok", "  1  error", "  2  usage", "  3  conflict"})
final class CollectCommand extends StoreSubcommand {

  @Option(names = "--older-than", paramLabel = "DURATION",
      description = "Horizon: a positive integer and one unit of d, h, m, s (e.g. 30d). Required.") String olderThan;
  @Option(names = "--namespace", paramLabel = "NS", description = "Only this namespace.") String namespace;
  @Option(names = "--collection", paramLabel = "COL", description = "Only this collection (needs --namespace).") String collection;

  @Override
  int execute(PrintWriter out, PrintWriter err) {
    require("--older-than", olderThan);
    Horizon horizon = Horizon.parse("--older-than", olderThan);
    KeyPrefix prefix = prefix(namespace, collection);
    Store store = openStore(cap());
    CollectReport report;
    try (TerminalProgress progress = TerminalProgress.forConsole(err, "collect")) {
      report = Collect.run(store, prefix, horizon.duration(), clock, progress);
    }
    out.println("horizon: " + horizon.describe());
    out.println("purged: " + report.purged());
    out.println("unstamped: " + report.unstamped());
    out.println("too young: " + report.tooYoung());
    out.println("conflicts: " + report.conflicts().size());
    for (RecordKey k : report.conflicts()) {
      err.println("conflict: " + k + " (recreated; kept)");
    }
    return ExitCode.OK;
  }
}
