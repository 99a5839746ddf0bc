package dev.lethe.store.soak;

import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import java.util.List;
import java.util.Map;

/**
 * What every replica answered for the soak's namespace after the quiet period.
 *
 * @param raw per replica (index = replica number), its raw listing by key, tombstones included
 * @param consumer per replica, its consumer listing by key (tombstones hidden)
 */
public record FinalState(List<Map<RecordKey, Record>> raw, List<Map<RecordKey, Record>> consumer) {
  public FinalState {
    raw = List.copyOf(raw);
    consumer = List.copyOf(consumer);
    if (raw.isEmpty() || raw.size() != consumer.size()) {
      throw new IllegalArgumentException("Invalid final state: " + raw.size() + " raw and " + consumer.size()
          + " consumer listings; expected one of each per replica, at least one");
    }
  }
}
