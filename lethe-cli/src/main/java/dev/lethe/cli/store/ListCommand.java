package dev.lethe.cli.store;

import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.Store;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code lethe store list}: one line per record: key, kind, counter, hash (tab-separated). */
@Command(name = "list", mixinStandardHelpOptions = true,
    description = "List records as 'ns/col/id<TAB>kind<TAB>counter<TAB>hash', ordered by key.",
    footerHeading = "%nExit codes:%n", footer = {"  0  ok", "  1  error", "  2  usage", "  3  conflict"})
final class ListCommand extends StoreSubcommand {

  @Option(names = "--namespace", paramLabel = "NS", description = "Only this namespace.") String namespace;
  @Option(names = "--collection", paramLabel = "COL", description = "Only this collection (needs --namespace).") String collection;
  @Option(names = "--raw", description = "Include tombstones (the replication surface).") boolean raw;

  @Override
  int execute(PrintWriter out, PrintWriter err) {
    KeyPrefix prefix = prefix(namespace, collection);
    Store store = openStore(cap());
    List<Record> records = raw ? store.listRaw(prefix) : store.list(prefix);
    for (Record r : records) {
      out.println(r.key() + "\t" + r.kind() + "\t" + r.revision().counter() + "\t" + r.revision().hash());
    }
    return ExitCode.OK;
  }
}
