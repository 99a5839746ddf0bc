package dev.lethe.cli.store;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code lethe store}: the Lethe Store commands (docs/design/0203-store-model.md "CLI"; user guide
 * docs/store.md). Exit codes: 0 ok, 1 error, 2 usage, 3 conflict.
 */
@Command(name = "store", mixinStandardHelpOptions = true,
    description = "Read and write a Lethe Store: records, deletes, reset, collect, sync, blob gc, git pull/push, S3 probe, HA soak.",
    subcommands = {GetCommand.class, ListCommand.class, PutCommand.class, DeleteCommand.class,
        ResetCommand.class, CollectCommand.class, SyncCommand.class, GcCommand.class, PullCommand.class,
        PushCommand.class, QualifyS3Command.class, PeersCommand.class, SoakCommand.class},
    footerHeading = "%nExit codes:%n", footer = {"  0  ok", "  1  error", "  2  usage", "  3  conflict"})
public final class StoreCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().getErr().println(
        "lethe store: missing command (get, list, put, delete, reset, collect, sync, gc, pull, push, qualify-s3, peers, soak); try 'lethe store --help'");
    return ExitCode.USAGE;
  }
}
