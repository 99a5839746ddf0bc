package dev.lethe.cli.store;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.Conflict;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.format.RevisionJson;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code lethe store put}: writes a record's body from a file or stdin. */
@Command(name = "put", mixinStandardHelpOptions = true,
    description = {"Write a record.",
        "Without --expected the key must be absent (or deleted: a recreation);",
        "with --expected it must hold that revision.",
        "Prints 'committed: ns/col/id' and 'revision: {...}'.",
        "A stale --expected prints 'conflict: ns/col/id' and 'current: {...}'",
        "(or 'not found: ns/col/id') and exits 3."},
    footerHeading = "%nExit codes:%n", footer = {"  0  ok", "  1  error", "  2  usage", "  3  conflict"})
final class PutCommand extends StoreSubcommand {

  @Option(names = "--namespace", paramLabel = "NS", description = "Namespace (required).") String namespace;
  @Option(names = "--collection", paramLabel = "COL", description = "Collection (required).") String collection;
  @Option(names = "--id", paramLabel = "ID", description = "Record id (required).") String id;
  @Option(names = "--kind", paramLabel = "KIND", defaultValue = "document",
      description = "Record kind (default: ${DEFAULT-VALUE}; log and lines merge by line union).") String kind;
  @Option(names = "--body-file", paramLabel = "FILE", description = "Body to write, or - for stdin (required).") String bodyFile;
  @Option(names = "--blob", description = "Store the body as a content-addressed blob.") boolean blob;
  @Option(names = "--expected", paramLabel = "REVISION_JSON",
      description = "Revision read before, e.g. {\"counter\":3,\"hash\":\"...\"}.") String expectedJson;

  /** Standard input; replaced by tests. */
  InputStream stdin = System.in;

  @Override
  boolean createsStore() {
    return true;
  }

  @Override
  int execute(PrintWriter out, PrintWriter err) {
    RecordKey key = key(namespace, collection, id);
    Kind k;
    try {
      k = new Kind(kind);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    if (k.isTombstone()) {
      throw new UsageException("--kind tombstone is written only by delete");
    }
    require("--body-file", bodyFile);
    Optional<Revision> expected = expected(expectedJson);
    byte[] bytes = readBody();
    Store store = openStore(cap());
    Body body = blob ? store.blobs().put(bytes).body() : new Body.Inline(bytes);
    PutResult result = store.put(Record.draft(key, k, body, Meta.byAuthor(CLI_AUTHOR)), expected);
    if (result instanceof Committed c) {
      out.println("committed: " + key);
      out.println("revision: " + RevisionJson.format(c.record().revision()));
      return ExitCode.OK;
    }
    if (result instanceof Conflict c) {
      err.println("conflict: " + key);
      err.println("current: " + RevisionJson.format(c.current().revision()));
      return ExitCode.CONFLICT;
    }
    err.println("not found: " + key);
    return ExitCode.CONFLICT;
  }

  private byte[] readBody() {
    try {
      if (bodyFile.equals("-")) {
        return stdin.readAllBytes();
      }
      return Files.readAllBytes(Path.of(bodyFile));
    } catch (NoSuchFileException e) {
      throw new UsageException("--body-file '" + bodyFile + "' does not exist");
    } catch (IOException e) {
      throw new UsageException("--body-file '" + bodyFile + "' cannot be read: " + e.getMessage());
    }
  }
}
