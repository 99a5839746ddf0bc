package dev.lethe.cli.store;

import dev.lethe.store.git.GitRemote;
import dev.lethe.store.git.GitStore;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code lethe store pull}: fetches a git store's remote and merges it by the kind rules. */
@Command(name = "pull", mixinStandardHelpOptions = true,
    description = {"Fetch a git: store's remote and merge its branch by the sync rules.",
        "A delete against an edit keeps the local side and prints 'conflict: KEY';",
        "push is then refused until a write or delete of KEY resolves it.",
        "A record this store collected the tombstone of comes back as that tombstone",
        "('restored tombstones: N'), or as a conflict when the remote edited it."},
    footerHeading = "%nExit codes:%n", footer = {"  0  ok", "  1  error", "  2  usage", "  3  conflict"})
final class PullCommand extends StoreSubcommand {

  @Option(names = "--remote", paramLabel = "NAME", defaultValue = GitRemote.DEFAULT_REMOTE,
      description = "Git remote to pull from (default: ${DEFAULT-VALUE}).")
  String remote;

  @Override
  int execute(PrintWriter out, PrintWriter err) {
    GitRemote.PullReport report = GitRemote.pull(GitCommands.gitStore(this), remote);
    out.println("pulled: " + report.outcome());
    out.println("taken: " + report.taken());
    out.println("merged: " + report.merged());
    out.println("restored tombstones: " + report.restored());
    out.println("conflicts: " + report.conflicts().size());
    report.conflicts().forEach(c -> err.println("conflict: " + c.key() + ": " + c.reason()));
    return report.conflicts().isEmpty() ? ExitCode.OK : ExitCode.CONFLICT;
  }
}
