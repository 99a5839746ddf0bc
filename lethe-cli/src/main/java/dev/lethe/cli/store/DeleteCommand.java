package dev.lethe.cli.store;

import dev.lethe.store.core.Conflict;
import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.format.RevisionJson;
import java.io.PrintWriter;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code lethe store delete}: writes a tombstone (a replicated delete). */
@Command(name = "delete", mixinStandardHelpOptions = true,
    description = {"Delete a record by writing a tombstone that sync carries to every peer.",
        "Prints 'deleted: ns/col/id' (also for a key never seen or already deleted).",
        "A stale --expected prints 'conflict: ns/col/id' and 'current: {...}',",
        "and exits 3."},
    footerHeading = "%nExit codes:%n", footer = {"  0  ok", "  1  error", "  2  usage", "  3  conflict"})
final class DeleteCommand extends StoreSubcommand {

  @Option(names = "--namespace", paramLabel = "NS", description = "Namespace (required).") String namespace;
  @Option(names = "--collection", paramLabel = "COL", description = "Collection (required).") String collection;
  @Option(names = "--id", paramLabel = "ID", description = "Record id (required).") String id;
  @Option(names = "--expected", paramLabel = "REVISION_JSON",
      description = "Revision from 'lethe store get', e.g. {\"counter\":3,\"hash\":\"...\"}.") String expectedJson;

  @Override
  int execute(PrintWriter out, PrintWriter err) {
    RecordKey key = key(namespace, collection, id);
    Optional<Revision> expected = expected(expectedJson);
    Store store = openStore(cap());
    DeleteResult result = store.deleteAs(key, expected, Optional.of(CLI_AUTHOR));
    if (result instanceof Conflict c) {
      err.println("conflict: " + key);
      err.println("current: " + RevisionJson.format(c.current().revision()));
      return ExitCode.CONFLICT;
    }
    out.println("deleted: " + key);
    return ExitCode.OK;
  }
}
