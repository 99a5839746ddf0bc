package dev.lethe.cli.store;

import dev.lethe.store.core.Store;
import dev.lethe.store.core.ledger.Peer;
import dev.lethe.store.core.ledger.StoreIds;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code lethe store peers}: the stores --store completed a sync with
 * (docs/design/0150-store-identity-and-peers.md).
 */
@Command(name = "peers", mixinStandardHelpOptions = true,
    subcommands = PeersCommand.Forget.class,
    description = {"List the stores --store has completed a sync with.",
        "First 'store <its own id>', then one line per peer: its id, 'last sync <time>',",
        "'last seen as <uri>', 'collected before <time>' or 'never collected', and",
        "'clock +/-N s' when its clock differed. Times are UTC, on --store's clock",
        "(the peer's own clock for its collect). 'peers forget ID' forgets one."},
    footerHeading = "%nExit codes:%n", footer = {"  0  ok", "  1  error", "  2  usage"})
final class PeersCommand extends StoreSubcommand {

  @Override
  int execute(PrintWriter out, PrintWriter err) {
    Store store = openStore(cap());
    out.println("store " + store.ledger().storeId());
    List<Peer> peers = store.ledger().peers();
    for (Peer p : peers) {
      out.println(p.id() + "  last sync " + Instant.ofEpochMilli(p.lastSyncMs()) + "  last seen as " + p.uri()
          + "  " + (p.collectCutoffMs() == null ? "never collected" : "collected before " + Instant.ofEpochMilli(p.collectCutoffMs()))
          + (Math.abs(p.clockOffsetMs()) >= 1000 ? "  clock " + (p.clockOffsetMs() > 0 ? "+" : "") + p.clockOffsetMs() / 1000 + " s" : ""));
    }
    if (peers.isEmpty()) {
      out.println("no peers");
    }
    return ExitCode.OK;
  }

  /** {@code lethe store peers forget ID}. */
  @Command(name = "forget", mixinStandardHelpOptions = true,
      description = {"Forget one peer of --store: collect no longer waits for it, and",
          "the clock it had is no longer allowed for. Exit 1 when it is not known."},
      footerHeading = "%nExit codes:%n", footer = {"  0  ok", "  1  error (not a known peer)", "  2  usage"})
  static final class Forget extends StoreSubcommand {
    @Parameters(arity = "0..1", paramLabel = "ID", description = "The peer's store id, as 'lethe store peers' lists it.") String id;

    @Override
    int execute(PrintWriter out, PrintWriter err) {
      require("ID", id);
      try {
        StoreIds.check(id);
      } catch (IllegalArgumentException e) {
        throw new UsageException(e.getMessage());
      }
      Store store = openStore(cap());
      if (!store.ledger().forgetPeer(id)) {
        err.println("lethe store peers forget: " + id + " is not a known peer of this store");
        return ExitCode.ERROR;
      }
      out.println("forgotten: " + id);
      return ExitCode.OK;
    }
  }
}
