package dev.lethe.server.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code store} key of an auth-file principal: its lists, their defaults, and bad grants stopping start-up. */
class StoreGrantsAuthFileTest {
  private static final String HASH = TokenHash.sha256Hex("t1");
  private static final String HASH2 = TokenHash.sha256Hex("t2");

  @TempDir Path dir;

  private Principal load(String principalLines) throws IOException {
    Path f = dir.resolve("auth.yaml");
    Files.writeString(f, "principals:\n  - name: carol\n    token-sha256: " + HASH + "\n" + principalLines);
    return new AuthFileLoader().load(f).principals().get(0).principal();
  }

  @Test
  void storeListsAreReadFromTheStoreKeyInYamlAndJson() throws IOException {
    Principal yaml = load("    read: [main]\n    store:\n      read: [team, shared]\n      write: [team]\n");
    assertThat(yaml.storeRead()).isEqualTo(Set.of("team", "shared"));
    assertThat(yaml.storeWrite()).isEqualTo(Set.of("team"));
    assertThat(yaml.readCatalogs()).isEqualTo(Set.of("main"));
    Path json = dir.resolve("auth.json");
    Files.writeString(json, "{\"principals\":[{\"name\":\"carol\",\"token-sha256\":\"" + HASH
        + "\",\"read\":[\"main\"],\"store\":{\"read\":[\"team\",\"shared\"],\"write\":[\"team\"]}}]}");
    assertThat(new AuthFileLoader().load(json).principals().get(0).principal()).isEqualTo(yaml);
  }

  @Test
  void aCatalogAdminWithoutAStoreKeyKeepsTheWholeStoreAndOthersGetNone() throws IOException {
    Path f = dir.resolve("auth.yaml");
    Files.writeString(f, "principals:\n"
        + "  - name: admin\n    token-sha256: " + HASH + "\n    read: [\"*\"]\n    write: [\"*\"]\n"
        + "  - name: analyst\n    token-sha256: " + HASH2 + "\n    read: [main]\n    write: [main]\n");
    AuthFile file = new AuthFileLoader().load(f);
    Principal admin = file.principals().get(0).principal();
    assertThat(admin.isStoreAdmin()).isTrue();
    assertThat(admin.storeRead()).containsExactly("*");
    Principal analyst = file.principals().get(1).principal();
    assertThat(analyst.storeRead()).isEmpty();
    assertThat(analyst.storeWrite()).isEmpty();
  }

  @Test
  void anEmptyOrNullStoreKeyGrantsNothingEvenToACatalogAdmin() throws IOException {
    Principal p = load("    read: [\"*\"]\n    write: [\"*\"]\n    store: {}\n");
    assertThat(p.isAdmin()).isTrue();
    assertThat(p.isStoreAdmin()).isFalse();
    assertThat(p.storeRead()).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "store: [team]                                   | 'store' must be an object",
      "store: {read: team}                             | 'store.read' must be a list",
      "store: {read: [team], writes: [team]}           | unknown key 'store.writes'",
      "store: {read: ['a/b']}                          | 'store.read' entries must be store namespaces",
      "store: {read: ['..']}                           | 'store.read' entries must be store namespaces",
      "store: {read: ['']}                             | 'store.read' entries must be store namespaces",
      "store: {read: [' team']}                        | 'store.read' entries must be store namespaces",
      "store: {read: [1]}                              | 'store.read' entries must be store namespaces",
      "store: {read: [team], write: [other]}           | 'store.write' grants 'other' but 'store.read' does not",
      "store: {read: [team], write: ['*']}             | 'store.write' grants \"*\" but 'store.read' does not",
  })
  void badGrantsStopTheLoadNamingThePrincipal(String store, String problem) {
    assertThatThrownBy(() -> load("    " + store + "\n"))
        .isInstanceOf(InvalidAuthFileException.class)
        .hasMessageContaining("principal #1 ('carol')")
        .hasMessageContaining(problem);
  }

  @Test
  void aWriteGrantCoveredByAReadWildcardIsAccepted() throws IOException {
    Principal p = load("    store: {read: ['*'], write: [team]}\n");
    assertThat(p.storeWrite()).containsExactly("team");
  }
}
