package dev.lethe.cli.store;

import dev.lethe.store.core.Store;
import dev.lethe.store.core.blob.BlobGc;
import dev.lethe.store.core.blob.GcReport;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code lethe store gc}: sweeps blobs no record references. */
@Command(name = "gc", mixinStandardHelpOptions = true,
    description = {"Remove blobs that no record or tombstone references, older than --grace.",
        "Prints swept, referenced and young counts."},
    footerHeading = "%nExit codes:%n", footer = {"  0  ok", "  1  error", "  2  usage", "  3  conflict"})
final class GcCommand extends StoreSubcommand {

  @Option(names = "--grace", paramLabel = "DURATION", defaultValue = "1h",
      description = "Minimum age of a removed blob: a positive integer and one unit of d, h, m, s (default: ${DEFAULT-VALUE}).")
  String grace;

  @Override
  int execute(PrintWriter out, PrintWriter err) {
    Horizon g = Horizon.parse("--grace", grace);
    Store store = openStore(cap());
    GcReport report = new BlobGc(clock).run(store, g.duration());
    out.println("grace: " + g.describe());
    out.println("swept: " + report.swept());
    out.println("referenced: " + report.referenced());
    out.println("young: " + report.young());
    return ExitCode.OK;
  }
}
