package dev.lethe.cli.store;

import dev.lethe.store.git.GitRemote;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code lethe store push}: sends a git store's branch to its remote. */
@Command(name = "push", mixinStandardHelpOptions = true,
    description = {"Send a git: store's branch to its remote.",
        "Refused, naming the keys, while the last pull's conflicts are unresolved:",
        "pushing would publish the local side over a remote delete."},
    footerHeading = "%nExit codes:%n", footer = {"  0  ok", "  1  error", "  2  usage", "  3  conflict"})
final class PushCommand extends StoreSubcommand {

  @Option(names = "--remote", paramLabel = "NAME", defaultValue = GitRemote.DEFAULT_REMOTE,
      description = "Git remote to push to (default: ${DEFAULT-VALUE}).")
  String remote;

  @Override
  int execute(PrintWriter out, PrintWriter err) {
    GitRemote.PushOutcome outcome = GitRemote.push(GitCommands.gitStore(this), remote);
    if (outcome instanceof GitRemote.Pushed p) {
      out.println("pushed: " + p.branch() + (p.upToDate() ? " (up to date)" : "") + " -> " + remote);
      return ExitCode.OK;
    }
    if (outcome instanceof GitRemote.Refused r) {
      r.conflicts().forEach(k -> err.println("conflict: " + k));
      err.println("push refused: " + r.conflicts().size()
          + " key(s) left in conflict by the last pull; write or delete each, then push");
      return ExitCode.CONFLICT;
    }
    err.println("push rejected: " + ((GitRemote.Rejected) outcome).reason());
    return ExitCode.CONFLICT;
  }
}
