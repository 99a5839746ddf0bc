package dev.lethe.cli.store;

import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.sync.Sync;
import dev.lethe.store.core.sync.SyncConflict;
import dev.lethe.store.core.sync.SyncCorrupt;
import dev.lethe.store.core.sync.SyncOptions;
import dev.lethe.store.core.sync.SyncReport;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code lethe store sync}: two-way sync of --store and --peer. */
@Command(name = "sync", mixinStandardHelpOptions = true,
    description = {"Sync --store and --peer both ways through the replication surface.",
        "Prints copied, fast-forwarded, merged, conflicts and converged;",
        "one 'conflict: ns/col/id: reason' line per conflict on stderr;",
        "exits 3 when conflicts remain (neither side was written for them),",
        "including keys one store cannot hold (in a file: store: namespace _blobs,",
        "ids over 229 characters).",
        "A key where either side holds a corrupt record (its revision does not match",
        "its body) is never copied: one 'corrupt: ns/col/id: …' line on stderr names",
        "it and where it is, the other keys are synced, and sync exits 1.",
        "A record one side offers for a key whose delete the other side collected",
        "(its purge log names the deleted revision or a later one) is not copied:",
        "the tombstone is written back on both sides ('restored tombstones: N');",
        "an offline edit of the deleted revision is a conflict (exit 3).",
        "Each side records the other as a peer ('lethe store peers')."},
    footerHeading = "%nExit codes:%n", footer = {"  0  ok", "  1  error", "  2  usage", "  3  conflict"})
final class SyncCommand extends StoreSubcommand {

  @Option(names = "--peer", paramLabel = "URI", description = "The other store: a store URI as for --store. Required.") String peerUri;
  @Option(names = "--namespace", paramLabel = "NS", description = "Only this namespace.") String namespace;
  @Option(names = "--collection", paramLabel = "COL", description = "Only this collection (needs --namespace).") String collection;

  @Override
  boolean createsStore() {
    return true;
  }

  @Override
  int execute(PrintWriter out, PrintWriter err) {
    require("--peer", peerUri);
    KeyPrefix prefix = prefix(namespace, collection);
    int cap = cap();
    Store a = openStore(cap);
    Store b = open("--peer", peerUri, cap);
    SyncReport report;
    try (TerminalProgress progress = TerminalProgress.forConsole(err, "sync")) {
      report = Sync.run(a, b, prefix, new SyncOptions(8, progress));
    }
    out.println("copied: " + report.copied());
    out.println("fast-forwarded: " + report.fastForwarded());
    out.println("merged: " + report.merged());
    out.println("restored tombstones: " + report.restored());
    out.println("conflicts: " + report.conflicts().size());
    if (!report.corrupt().isEmpty()) {
      out.println("corrupt: " + report.corrupt().size());
    }
    out.println("converged: " + (report.converged() ? "yes" : "no"));
    for (SyncConflict c : report.conflicts()) {
      err.println("conflict: " + c.key() + ": " + c.reason());
    }
    for (SyncCorrupt c : report.corrupt()) {
      err.println("corrupt: " + c.key() + ": " + c.message());
    }
    // A corrupt record is an error the operator must repair; it outranks conflicts.
    return !report.corrupt().isEmpty() ? ExitCode.ERROR
        : report.conflicts().isEmpty() ? ExitCode.OK : ExitCode.CONFLICT;
  }
}
