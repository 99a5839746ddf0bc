package dev.lethe.server.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuthFileLoaderTest {
  private static final String ANALYST_HASH = TokenHash.sha256Hex("analyst-token");
  private static final String ADMIN_HASH = TokenHash.sha256Hex("admin-token");

  @TempDir Path dir;
  private final AuthFileLoader loader = new AuthFileLoader();

  private Path file(String name, String content) throws IOException {
    Path f = dir.resolve(name);
    Files.writeString(f, content);
    return f;
  }

  private static String yaml(String principals) {
    return "principals:\n" + principals;
  }

  private static String principal(String name, String hash, String read, String write) {
    return "  - name: " + name + "\n    token-sha256: " + hash + "\n    read: " + read + "\n    write: " + write + "\n";
  }

  @Test
  void yamlAndJsonFilesLoadTheSamePrincipals() throws IOException {
    Path yaml = file("auth.yaml", yaml(principal("analyst", ANALYST_HASH, "[main]", "[]")
        + principal("admin", ADMIN_HASH, "['*']", "['*']")));
    Path yml = file("auth.yml", Files.readString(yaml));
    Path json = file("auth.json", "{\"principals\": ["
        + "{\"name\": \"analyst\", \"token-sha256\": \"" + ANALYST_HASH + "\", \"read\": [\"main\"], \"write\": []},"
        + "{\"name\": \"admin\", \"token-sha256\": \"" + ADMIN_HASH + "\", \"read\": [\"*\"], \"write\": [\"*\"]}]}");

    AuthFile fromYaml = loader.load(yaml);
    assertThat(fromYaml.principals()).extracting(PrincipalEntry::principal).containsExactly(
        new Principal("analyst", Set.of("main"), Set.of()),
        new Principal("admin", Set.of("*"), Set.of("*")));
    assertThat(loader.load(yml).principals()).isEqualTo(fromYaml.principals());
    assertThat(loader.load(json).principals()).isEqualTo(fromYaml.principals());
    assertThat(fromYaml.principals().get(1).principal().isAdmin()).isTrue();
  }

  @Test
  void absentReadOrWriteListsGrantNothing() throws IOException {
    Path f = file("auth.yaml", yaml("  - name: nobody\n    token-sha256: " + ANALYST_HASH + "\n"));
    Principal p = loader.load(f).principals().get(0).principal();
    assertThat(p.readCatalogs()).isEmpty();
    assertThat(p.writeCatalogs()).isEmpty();
    assertThat(p.may("main", Access.READ)).isFalse();
  }

  @Test
  void missingFileAndUnsupportedExtensionNameTheFile() throws IOException {
    Path missing = dir.resolve("nope.yaml");
    assertThatThrownBy(() -> loader.load(missing)).isInstanceOf(InvalidAuthFileException.class)
        .hasMessage("Invalid auth file " + missing + ": file does not exist");
    Path txt = file("auth.txt", "principals: []");
    assertThatThrownBy(() -> loader.load(txt)).isInstanceOf(InvalidAuthFileException.class)
        .hasMessageContaining(txt.toString()).hasMessageContaining("use .yaml, .yml or .json");
  }

  @Test
  void unparsableFileNamesTheFileAndLineWithoutEchoingContent() throws IOException {
    Path f = file("auth.yaml", "principals:\n  - name: a\n    token: \"plain-secret\n  bad: [\n");
    assertThatThrownBy(() -> loader.load(f)).isInstanceOf(InvalidAuthFileException.class)
        .hasMessageStartingWith("Invalid auth file " + f + ": cannot parse")
        .hasMessageContaining("line ")
        .hasMessageNotContaining("plain-secret");
    Path json = file("auth.json", "{\"principals\": [");
    assertThatThrownBy(() -> loader.load(json)).isInstanceOf(InvalidAuthFileException.class)
        .hasMessageContaining(json.toString());
  }

  @Test
  void clearTokenIsRejectedWithoutRepeatingIt() throws IOException {
    Path f = file("auth.yaml", yaml("  - name: bob\n    token: plain-secret\n    read: [main]\n"));
    assertThatThrownBy(() -> loader.load(f)).isInstanceOf(InvalidAuthFileException.class)
        .hasMessage("Invalid auth file " + f + ": principal #1 ('bob'): clear tokens are not accepted; store token-sha256 instead")
        .hasMessageNotContaining("plain-secret");
  }

  @Test
  void badTokenHashNamesThePrincipal() throws IOException {
    for (String hash : new String[] {ANALYST_HASH.toUpperCase(), ANALYST_HASH.substring(1), "'" + ANALYST_HASH + "0'", "12", "[a]"}) {
      Path f = file("auth.yaml", yaml(principal("ok", ADMIN_HASH, "[]", "[]") + principal("carol", hash, "[main]", "[]")));
      assertThatThrownBy(() -> loader.load(f)).as(hash).isInstanceOf(InvalidAuthFileException.class)
          .hasMessage("Invalid auth file " + f
              + ": principal #2 ('carol'): 'token-sha256' must be 64 lower-case hex characters (the SHA-256 of the token)");
    }
  }

  @Test
  void everyMalformedEntryIsRejectedNamingFileAndEntry() throws IOException {
    String[][] cases = {
      {yaml("  - name: dave\n    token-sha256: " + ANALYST_HASH + "\n    raed: [main]\n"),
          "principal #1 ('dave'): unknown key 'raed'; expected name, token-sha256, read, write, store"},
      {yaml("  - token-sha256: " + ANALYST_HASH + "\n"), "principal #1: 'name' must be a non-empty string"},
      {yaml("  - name: ''\n    token-sha256: " + ANALYST_HASH + "\n"), "principal #1: 'name' must be a non-empty string"},
      {yaml("  - name: erin\n"), "principal #1 ('erin'): 'token-sha256' is missing"},
      {yaml("  - name: erin\n    token-sha256: " + ANALYST_HASH + "\n    read: main\n"),
          "principal #1 ('erin'): 'read' must be a list of catalog names or \"*\""},
      {yaml("  - name: erin\n    token-sha256: " + ANALYST_HASH + "\n    write: ['']\n"),
          "principal #1 ('erin'): 'write' entries must be non-empty catalog names or \"*\", got \"\""},
      {yaml("  - just-a-string\n"), "principal #1 must be an object with name, token-sha256, read and write"},
      {yaml(principal("frank", ANALYST_HASH, "[]", "[]") + principal("frank", ADMIN_HASH, "[]", "[]")),
          "principal 'frank' is defined twice"},
      {yaml(principal("gina", ANALYST_HASH, "[]", "[]") + principal("hank", ANALYST_HASH, "[]", "[]")),
          "principal 'hank' has the same token-sha256 as another principal"},
      {"principals: []\n", "'principals' is empty; with no principal every request would be refused"},
      {"principals: {}\n", "'principals' must be a list"},
      {"users: []\n", "unknown top-level key 'users'; expected only 'principals'"},
      {"- a\n", "expected an object with a 'principals' list at the top level"},
      {"", "file is empty; expected a 'principals' list"},
    };
    for (String[] c : cases) {
      Path f = file("auth.yaml", c[0]);
      assertThatThrownBy(() -> loader.load(f)).as(c[1]).isInstanceOf(InvalidAuthFileException.class)
          .hasMessage("Invalid auth file " + f + ": " + c[1]);
    }
  }

  @Test
  void repeatedKeyIsRejectedRatherThanSilentlyOverridden() throws IOException {
    Path f = file("auth.yaml", yaml("  - name: ivy\n    token-sha256: " + ANALYST_HASH
        + "\n    write: []\n    write: ['*']\n"));
    assertThatThrownBy(() -> loader.load(f)).isInstanceOf(InvalidAuthFileException.class)
        .hasMessageContaining(f.toString()).hasMessageContaining("write");
  }

  @Test
  void documentedExampleLetsTheAnalystReadButNotCreateInMain() throws IOException {
    // the example of docs/auth.md, comments and quoting included
    Path f = file("auth.yaml", """
        principals:
          - name: analyst          # token: analyst-token
            token-sha256: 06ff3913469cdb533bd93c0701fee774bbf18c48e01cdfc413a17b69dbea0764
            read: [main]
            write: []
          - name: admin            # token: admin-token
            token-sha256: "10a4c7c9fc5206d6f36dc6944a81bb6f4a3cb0e25014ae3b12e6c3e52712292a"
            read: ["*"]
            write: ["*"]
        """);
    Authorizer authorizer = Authorizer.of(loader.load(f));
    assertThat(authorizer.authorize("Bearer analyst-token", "main", Access.READ)).isInstanceOf(AuthDecision.Allowed.class);
    assertThat(authorizer.authorize("Bearer analyst-token", "main", Access.WRITE)).isInstanceOf(AuthDecision.Forbidden.class);
    assertThat(authorizer.authorize(null, "main", Access.READ)).isInstanceOf(AuthDecision.Unauthenticated.class);
    assertThat(authorizer.authorizeAdmin("Bearer admin-token")).isInstanceOf(AuthDecision.Allowed.class);
  }
}
