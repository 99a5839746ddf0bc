package dev.lethe.store.core.ledger;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/** The {@code memory:} store's ledger: a document and lines in memory, under one monitor. */
public final class MemoryLedger extends DocumentLedger {

  private String state;
  private List<String> lines = new ArrayList<>();

  /** @param clock the store's clock */
  public MemoryLedger(Clock clock) {
    super(clock);
  }

  @Override
  protected synchronized String updateState(UnaryOperator<Optional<String>> change) {
    state = change.apply(Optional.ofNullable(state)).orElseThrow();
    return state;
  }

  @Override
  protected synchronized Optional<String> readState() {
    return Optional.ofNullable(state);
  }

  @Override
  protected synchronized void appendLine(String line) {
    lines.add(line);
  }

  @Override
  protected synchronized List<String> readLines() {
    return List.copyOf(lines);
  }

  @Override
  protected synchronized void rewriteLines(UnaryOperator<List<String>> keep) {
    lines = new ArrayList<>(keep.apply(List.copyOf(lines)));
  }
}
