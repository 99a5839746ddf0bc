package dev.lethe.store.core.ledger;

import dev.lethe.store.core.KeyPrefix;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * A {@link Ledger} kept as one small state document (id, collect cutoff, peers) and an
 * append-only list of purge-log lines (docs/design/0151-purge-log.md "Storage"): the shape of
 * the memory, file and object-store substrates, which only say how to read and replace the
 * document atomically and how to append and rewrite lines. Rules are not here: the store id is
 * created once by {@link #storeId} (a lost race reads the winner's), the rest is data.
 */
public abstract class DocumentLedger implements Ledger {

  private final Clock clock;

  /** @param clock the store's own clock */
  protected DocumentLedger(Clock clock) {
    this.clock = clock;
  }

  /**
   * Replaces the state document atomically with {@code change}'s result from what it holds now
   * (empty when there is none yet); returns the new document.
   */
  protected abstract String updateState(UnaryOperator<Optional<String>> change);

  /** Reads the state document; empty when there is none yet. */
  protected abstract Optional<String> readState();

  /** Appends one line (no newline) to the purge log, durably, atomically with respect to readers. */
  protected abstract void appendLine(String line);

  /** Every purge-log line, in append order. */
  protected abstract List<String> readLines();

  /** Replaces the purge log with {@code keep}'s result, atomically with respect to appends. */
  protected abstract void rewriteLines(UnaryOperator<List<String>> keep);

  private LedgerJson.State state() {
    Optional<String> s = readState();
    if (s.isPresent()) {
      return LedgerJson.state(s.get());
    }
    // created once: a racing creator's document is kept, not replaced
    return LedgerJson.state(updateState(cur -> Optional.of(cur.orElseGet(
        () -> LedgerJson.state(new LedgerJson.State(StoreIds.create(), null, List.of()))))));
  }

  private void change(UnaryOperator<LedgerJson.State> f) {
    updateState(cur -> Optional.of(LedgerJson.state(f.apply(cur.map(LedgerJson::state)
        .orElseGet(() -> new LedgerJson.State(StoreIds.create(), null, List.of()))))));
  }

  @Override
  public String storeId() {
    return state().id();
  }

  @Override
  public long now() {
    return clock.millis();
  }

  @Override
  public List<Peer> peers() {
    List<Peer> out = new ArrayList<>(state().peers());
    out.sort(java.util.Comparator.comparing(Peer::id));
    return out;
  }

  @Override
  public void recordPeer(Peer peer) {
    change(s -> {
      List<Peer> peers = new ArrayList<>(s.peers());
      peers.removeIf(p -> p.id().equals(peer.id()));
      peers.add(peer);
      return new LedgerJson.State(s.id(), s.collectCutoff(), peers);
    });
  }

  @Override
  public boolean forgetPeer(String id) {
    boolean[] found = {false};
    change(s -> {
      List<Peer> peers = new ArrayList<>(s.peers());
      found[0] = peers.removeIf(p -> p.id().equals(id));
      return new LedgerJson.State(s.id(), s.collectCutoff(), peers);
    });
    return found[0];
  }

  @Override
  public Optional<Long> collectCutoff() {
    return Optional.ofNullable(state().collectCutoff());
  }

  @Override
  public void recordCollect(long cutoffMs) {
    change(s -> new LedgerJson.State(s.id(), cutoffMs, s.peers()));
  }

  @Override
  public void appendPurged(PurgeEntry entry) {
    appendLine(LedgerJson.entry(entry));
  }

  @Override
  public List<PurgeEntry> purged(KeyPrefix prefix) {
    List<PurgeEntry> out = new ArrayList<>();
    for (String line : readLines()) {
      PurgeEntry e = LedgerJson.entry(line);
      if (prefix.matches(e.key())) {
        out.add(e);
      }
    }
    return out;
  }

  /** Reads the lines once and parses only the page's (docs/design/0157-purge-log-pages.md). */
  @Override
  public PurgeLogPage purgedPage(KeyPrefix prefix, Optional<String> after, int size) {
    return PurgeLogPage.ofLines(readLines(), prefix, after, size);
  }

  @Override
  public int trimPurged(long purgedBeforeMs) {
    PurgeLogHorizon.check(purgedBeforeMs, collectCutoff()); // docs/design/0151-purge-log.md "Trimming"
    int[] removed = {0};
    rewriteLines(lines -> {
      List<String> keep = new ArrayList<>();
      for (String l : lines) {
        if (LedgerJson.entry(l).purgedAt() < purgedBeforeMs) {
          removed[0]++;
        } else {
          keep.add(l);
        }
      }
      return keep;
    });
    return removed[0];
  }
}
