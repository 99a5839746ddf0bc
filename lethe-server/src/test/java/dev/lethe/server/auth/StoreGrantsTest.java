package dev.lethe.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every (principal shape, action, namespace) cell of {@link StoreGrants#decide} against a table
 * written out by hand (docs/design/0105-store-grants.md). The table must name every action for
 * every principal, so a new action fails this test until its row is written.
 */
class StoreGrantsTest {

  private static Principal p(String name, Set<String> read, Set<String> write) {
    return new Principal(name, Set.of(), Set.of(), read, write);
  }

  /** The principal shapes: no grant, read-only, reader-writer, write-only, wildcard reader, admins. */
  private static final Map<Principal, Map<StoreAction, String>> TABLE = new LinkedHashMap<>();

  // each string: allowed (Y) or denied (N) for namespace "team", namespace "other", and no namespace (whole store)
  static {
    TABLE.put(p("nobody", Set.of(), Set.of()), row(
        "YYY", "NNN", "NNN", "NNN", "NNN", "NNN", "NNN", "NNN", "NNN", "NNN"));
    TABLE.put(p("reader", Set.of("team"), Set.of()), row(
        "YYY", "YNN", "YNN", "NNN", "NNN", "NNN", "NNN", "YYY", "NNN", "NNN"));
    TABLE.put(p("writer", Set.of("team"), Set.of("team")), row(
        "YYY", "YNN", "YNN", "YNN", "YNN", "YNN", "NNN", "YYY", "YYY", "NNN"));
    TABLE.put(p("write-only", Set.of(), Set.of("team")), row(
        "YYY", "NNN", "NNN", "YNN", "YNN", "NNN", "NNN", "NNN", "YYY", "NNN"));
    TABLE.put(p("all-reader", Set.of("*"), Set.of("team")), row(
        "YYY", "YYY", "YYY", "YNN", "YNN", "YNN", "NNN", "YYY", "YYY", "NNN"));
    TABLE.put(p("all-writer", Set.of("team"), Set.of("*")), row(
        "YYY", "YNN", "YNN", "YYY", "YYY", "YNN", "NNN", "YYY", "YYY", "NNN"));
    TABLE.put(p("store-admin", Set.of("*"), Set.of("*")), row(
        "YYY", "YYY", "YYY", "YYY", "YYY", "YYY", "YYY", "YYY", "YYY", "YYY"));
    // a catalog admin without a store key keeps the whole store (the store routes were admin-only before grants)
    TABLE.put(new Principal("catalog-admin", Set.of("*"), Set.of("*")), row(
        "YYY", "YYY", "YYY", "YYY", "YYY", "YYY", "YYY", "YYY", "YYY", "YYY"));
    // a catalog writer without a store key has no store grant at all
    TABLE.put(new Principal("catalog-writer", Set.of("team"), Set.of("team")), row(
        "YYY", "NNN", "NNN", "NNN", "NNN", "NNN", "NNN", "NNN", "NNN", "NNN"));
    // a catalog admin whose store key narrows it is no store admin
    TABLE.put(new Principal("narrowed-admin", Set.of("*"), Set.of("*"), Set.of("team"), Set.of("team")), row(
        "YYY", "YNN", "YNN", "YNN", "YNN", "YNN", "NNN", "YYY", "YYY", "NNN"));
  }

  /** Cells in {@link StoreAction} declaration order. */
  private static Map<StoreAction, String> row(String... cells) {
    StoreAction[] actions = {StoreAction.INFO, StoreAction.READ, StoreAction.LIST, StoreAction.WRITE,
        StoreAction.PUT_RAW, StoreAction.RESET, StoreAction.PURGE, StoreAction.BLOB_READ, StoreAction.BLOB_WRITE,
        StoreAction.BLOB_ADMIN};
    Map<StoreAction, String> m = new LinkedHashMap<>();
    for (int i = 0; i < cells.length; i++) {
      m.put(actions[i], cells[i]);
    }
    return m;
  }

  private static final List<Optional<String>> NAMESPACES = List.of(Optional.of("team"), Optional.of("other"), Optional.empty());

  @Test
  void everyCellOfTheTableIsDecidedAsWritten() {
    int cells = 0;
    for (Map.Entry<Principal, Map<StoreAction, String>> e : TABLE.entrySet()) {
      assertThat(e.getValue().keySet()).as("row of %s", e.getKey().name()).isEqualTo(EnumSet.allOf(StoreAction.class));
      for (Map.Entry<StoreAction, String> cell : e.getValue().entrySet()) {
        for (int i = 0; i < NAMESPACES.size(); i++) {
          boolean expected = cell.getValue().charAt(i) == 'Y';
          StoreGrants.Decision d = StoreGrants.decide(e.getKey(), cell.getKey(), NAMESPACES.get(i));
          assertThat(d instanceof StoreGrants.Allow)
              .as("%s %s on %s: %s", e.getKey().name(), cell.getKey(), NAMESPACES.get(i), d)
              .isEqualTo(expected);
          cells++;
        }
      }
    }
    assertThat(cells).isEqualTo(TABLE.size() * StoreAction.values().length * NAMESPACES.size());
  }

  @Test
  void aRefusalNamesThePrincipalAndTheNamespaceAndNothingElse() {
    StoreGrants.Decision d = StoreGrants.decide(p("reader", Set.of("team"), Set.of()), StoreAction.WRITE, Optional.of("team"));
    assertThat(d).isEqualTo(new StoreGrants.Deny("Principal 'reader' has no store.write grant on store namespace 'team'"));
    StoreGrants.Decision purge = StoreGrants.decide(p("writer", Set.of("team"), Set.of("team")), StoreAction.PURGE,
        Optional.of("team"));
    assertThat(((StoreGrants.Deny) purge).reason()).contains("'writer'").contains("store admin");
  }

  @Test
  void aRefusedWholeStoreListingSaysWhatWouldBeAllowed() {
    // `lethe store sync --peer http://…` without --namespace, with a token that reads some namespaces,
    // used to end in "has no store.read grant on the whole store" with no way forward named
    StoreGrants.Decision d = StoreGrants.decide(p("writer", Set.of("team"), Set.of("team")), StoreAction.LIST, Optional.empty());
    assertThat(((StoreGrants.Deny) d).reason())
        .isEqualTo("Principal 'writer' has no store.read grant on the whole store: listing every namespace needs"
            + " \"*\" in store.read; list one namespace instead (/store/v1/records/{ns}, or --namespace NS)");
  }
}
