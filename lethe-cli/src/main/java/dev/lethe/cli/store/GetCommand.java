package dev.lethe.cli.store;

import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.format.RecordJson;
import java.io.PrintWriter;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code lethe store get}: prints one record's JSON (docs/store-format.md). */
@Command(name = "get", mixinStandardHelpOptions = true,
    description = "Print a record as JSON. A deleted or absent key prints 'not found: ns/col/id' and exits 1.",
    footerHeading = "%nExit codes:%n", footer = {"  0  ok", "  1  error", "  2  usage", "  3  conflict"})
final class GetCommand extends StoreSubcommand {

  @Option(names = "--namespace", paramLabel = "NS", description = "Namespace (required).") String namespace;
  @Option(names = "--collection", paramLabel = "COL", description = "Collection (required).") String collection;
  @Option(names = "--id", paramLabel = "ID", description = "Record id (required).") String id;
  @Option(names = "--raw", description = "Show tombstones too (the replication surface).") boolean raw;

  @Override
  int execute(PrintWriter out, PrintWriter err) {
    RecordKey key = key(namespace, collection, id);
    Store store = openStore(cap());
    Optional<Record> r = raw ? store.getRaw(key) : store.get(key);
    if (r.isEmpty()) {
      err.println("not found: " + key);
      return ExitCode.ERROR;
    }
    out.print(new RecordJson().format(r.get()));
    return ExitCode.OK;
  }
}
