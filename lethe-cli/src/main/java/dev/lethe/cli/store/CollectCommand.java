package dev.lethe.cli.store;

import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.collect.Collect;
import dev.lethe.store.core.collect.CollectGate;
import dev.lethe.store.core.collect.CollectReport;
import dev.lethe.store.core.ledger.Peer;
import dev.lethe.store.core.ledger.PurgeLogHorizon;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code lethe store collect}: purges tombstones older than a horizon (docs/design/0153-collect-gating.md). */
@Command(name = "collect", mixinStandardHelpOptions = true,
    description = {"Purge tombstones deleted at least --older-than ago.",
        "There is no default horizon. Every purged tombstone is first written to the",
        "store's purge log, so a peer's later sync cannot bring the record back.",
        "A tombstone some known peer ('lethe store peers') has not synced past holds",
        "the whole collect back: nothing is purged, one 'held back: …' line per peer",
        "on stderr, exit 3 (a conflict); --seen-by-all purges only what every peer",
        "has seen, --force purges regardless of peers. A tombstone dated in the future,",
        "or whose age a known peer's slow clock could explain, is kept ('skewed: …' on",
        "stderr).",
        "Unstamped tombstones are kept and counted.",
        "Conflicts (keys recreated meanwhile) exit 0."},
    footerHeading = "%nExit codes:%n", footer = {"  0  ok", "  1  error", "  2  usage", "  3  conflict"})
final class CollectCommand extends StoreSubcommand {

  @Option(names = "--older-than", paramLabel = "DURATION",
      description = "Horizon: a positive integer and one unit of d, h, m, s (e.g. 30d). Required.") String olderThan;
  @Option(names = "--namespace", paramLabel = "NS", description = "Only this namespace.") String namespace;
  @Option(names = "--collection", paramLabel = "COL", description = "Only this collection (needs --namespace).") String collection;
  @Option(names = "--force", description = "Purge even what known peers have not synced past.") boolean force;
  @Option(names = "--seen-by-all", description = "Purge only what every known peer has synced past.") boolean seenByAll;
  @Option(names = "--trim-log-older-than", paramLabel = "DURATION",
      description = "Also drop purge-log entries purged at least this long ago; at least --older-than (default: keep them all).")
  String trimLog;

  @Override
  int execute(PrintWriter out, PrintWriter err) {
    require("--older-than", olderThan);
    Horizon horizon = Horizon.parse("--older-than", olderThan);
    if (force && seenByAll) {
      throw new UsageException("--force and --seen-by-all cannot be combined");
    }
    Horizon trim = trimLog == null ? null : Horizon.parse("--trim-log-older-than", trimLog);
    if (trim != null && !PurgeLogHorizon.outlives(trim.duration(), horizon.duration())) {
      throw new UsageException("--trim-log-older-than " + trim.describe() + " is shorter than --older-than "
          + horizon.describe() + ": the purge log must outlive the tombstones");
    }
    KeyPrefix prefix = prefix(namespace, collection);
    Store store = openStore(cap());
    CollectGate.Mode mode = force ? CollectGate.Mode.FORCE : seenByAll ? CollectGate.Mode.SEEN_BY_ALL : CollectGate.Mode.REFUSE;
    Map<String, Peer> peers = store.ledger().peers().stream().collect(Collectors.toMap(Peer::id, Function.identity()));
    CollectReport report;
    try (TerminalProgress progress = TerminalProgress.forConsole(err, "collect")) {
      report = Collect.run(store, prefix, horizon.duration(), clock, progress, mode, CollectGate.DEFAULT_SKEW);
    }
    out.println("horizon: " + horizon.describe());
    out.println("purged: " + report.purged());
    out.println("unstamped: " + report.unstamped());
    out.println("too young: " + report.tooYoung());
    out.println("skewed: " + report.skewed().size());
    out.println("peers holding back: " + report.heldBack().size());
    out.println("conflicts: " + report.conflicts().size());
    if (trim != null && !report.refused()) {
      // on the store's clock, never past the last collect's cutoff: docs/design/0151-purge-log.md "Trimming"
      Optional<Long> before = PurgeLogHorizon.cutoff(store.ledger().now(), trim.duration(), store.ledger().collectCutoff());
      out.println("purge log trimmed: " + (before.isEmpty() ? 0 : store.ledger().trimPurged(before.get())));
    }
    for (Map.Entry<String, Integer> h : report.heldBack().entrySet()) {
      Peer p = peers.get(h.getKey());
      err.println((report.refused() ? "held back: peer " : mode == CollectGate.Mode.FORCE ? "forced past: peer " : "kept for: peer ")
          + h.getKey() + (p == null ? "" : " (" + p.uri() + ", last sync " + Instant.ofEpochMilli(p.lastSyncMs()) + ")")
          + " has not synced past " + h.getValue() + " tombstone" + (h.getValue() == 1 ? "" : "s"));
    }
    for (Map.Entry<RecordKey, String> s : report.skewed().entrySet()) {
      err.println("skewed: " + s.getKey() + ": " + s.getValue() + " (kept)");
    }
    for (RecordKey k : report.conflicts()) {
      err.println("conflict: " + k + " (recreated; kept)");
    }
    if (report.refused()) {
      err.println("lethe store collect: nothing purged; sync those peers first, or pass --seen-by-all or --force");
      return ExitCode.CONFLICT;
    }
    return ExitCode.OK;
  }
}
