package dev.lethe.server.paging;

import static dev.lethe.server.paging.PagingServer.JSON;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.server.paging.PagingServer.Listing;
import dev.lethe.store.jdbc.FreshStoreDatabases;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Page tokens are signed with the server key of the catalog database and bound to their scope
 * (docs/design/0423-signed-page-tokens.md), over real HTTP: a token of catalog {@code main} used
 * on {@code other}, a tampered token, one built with the unkeyed check of design 0403, and store
 * tokens of another namespace, tampered or unsigned, are 400 with a JSON body naming {@code
 * pageToken}; two servers on one database accept each other's tokens.
 */
class SignedPageTokensTest {
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder UNB64 = Base64.getUrlDecoder();

  @TempDir Path dir;
  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  private PagingServer start(String jdbcUrl, String backend, Path where) throws Exception {
    PagingServer s = new PagingServer(jdbcUrl, backend, where);
    open.add(s);
    return s;
  }

  /** A server whose catalogs {@code main} and {@code other} both hold namespace {@code db} with tables t0 … t2. */
  private PagingServer twoCatalogs(String backend) throws Exception {
    PagingServer s = start(null, backend, dir);
    s.server().catalogs().ensureCatalog("other", dir.resolve("other").toString(), Map.of());
    for (String catalog : List.of("main", "other")) {
      s.expect(200, "POST", "/iceberg/v1/" + catalog + "/namespaces", "{\"namespace\":[\"db\"]}");
      for (String t : List.of("t0", "t1", "t2")) {
        s.expect(200, "POST", "/iceberg/v1/" + catalog + "/namespaces/db/tables", String.format(
            "{\"name\":\"%s\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"id\","
                + "\"required\":true,\"type\":\"long\"}]}}", t));
      }
    }
    return s;
  }

  private static Listing tablesOf(String catalog) {
    return new Listing("tables of " + catalog, "/iceberg/v1/" + catalog + "/namespaces/db/tables", "identifiers",
        "next-page-token", "pageSize", n -> n.get("name").asText());
  }

  private static void assertRefused(HttpResponse<String> r) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
    JsonNode body = JSON.readTree(r.body());
    JsonNode error = body.has("error") ? body.get("error") : body;
    assertThat(error.get("message").asText()).startsWith("Invalid pageToken");
  }

  private static String url(Listing l, String token) {
    return l.url(1, null) + "&pageToken=" + URLEncoder.encode(token, StandardCharsets.UTF_8);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql"})
  void aTokenOfCatalogMainIsRefusedOnCatalogOther(String backend) throws Exception {
    PagingServer s = twoCatalogs(backend);
    String token = s.page(tablesOf("main"), 1, null).next();
    assertThat(s.page(tablesOf("main"), 1, token).keys()).containsExactly("t1");
    assertRefused(s.send("GET", url(tablesOf("other"), token), null));
    String nsToken = s.page(PagingServer.namespaces(), 1, null).next();
    assertThat(nsToken).isNull(); // one namespace in main: no next page; build one with two
    s.expect(200, "POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db2\"]}");
    nsToken = s.page(PagingServer.namespaces(), 1, null).next();
    assertRefused(s.send("GET", "/iceberg/v1/other/namespaces?pageSize=1&pageToken=" + nsToken, null));
    // the management listings are bound to their catalog too
    assertThat(s.send("GET", "/api/metalakes/default/catalogs/other/cleanups?limit=1&pageToken=" + token, null)
        .statusCode()).isEqualTo(400);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql"})
  void aTamperedTokenIsRefused(String backend) throws Exception {
    PagingServer s = twoCatalogs(backend);
    String token = s.page(tablesOf("main"), 1, null).next();
    int dot = token.indexOf('.');
    String json = new String(UNB64.decode(token.substring(0, dot)), StandardCharsets.UTF_8);
    assertThat(json).contains("\"after\":\"t0\"");
    // the body edited to start after t1, the signature kept
    String edited = B64.encodeToString(json.replace("\"t0\"", "\"t1\"").getBytes(StandardCharsets.UTF_8))
        + token.substring(dot);
    assertRefused(s.send("GET", url(tablesOf("main"), edited), null));
    // the body kept, the signature's first byte changed
    byte[] signature = UNB64.decode(token.substring(dot + 1));
    signature[0] ^= 1;
    assertRefused(s.send("GET", url(tablesOf("main"), token.substring(0, dot + 1) + B64.encodeToString(signature)), null));
    // the body moved to catalog other with the signature kept
    String moved = B64.encodeToString(json.replace("\"main\"", "\"other\"").getBytes(StandardCharsets.UTF_8))
        + token.substring(dot);
    assertRefused(s.send("GET", url(tablesOf("other"), moved), null));
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql"})
  void aTokenForgedWithTheOldUnkeyedCheckIsRefused(String backend) throws Exception {
    PagingServer s = twoCatalogs(backend);
    String json = "{\"v\":1,\"listing\":\"TABLES\",\"scope\":[\"other\",\"db\"],\"after\":\"t1\"}";
    assertRefused(s.send("GET", url(tablesOf("other"), unkeyed(json)), null));
    String ok = s.page(tablesOf("other"), 1, null).next();
    assertThat(s.page(tablesOf("other"), 1, ok).keys()).containsExactly("t1");
  }

  @ParameterizedTest
  @ValueSource(strings = {"postgresql", "mariadb"})
  void twoServersStartedAtOnceOnOneDatabaseAcceptEachOthersTokens(String backend) throws Exception {
    FreshStoreDatabases databases = new FreshStoreDatabases();
    open.add(databases);
    String jdbcUrl = databases.create(backend, dir);
    // migrated first: two first starts migrating one fresh MariaDB at once can fail in Flyway's
    // baseline; the race under test is the key's creation, which this leaves to the two servers
    dev.lethe.catalog.entity.CatalogDatabase.open(new dev.lethe.catalog.entity.DatabaseSettings(jdbcUrl, null, null, 2))
        .close();
    CompletableFuture<PagingServer> first = CompletableFuture.supplyAsync(() -> startQuietly(jdbcUrl, backend, "a"));
    CompletableFuture<PagingServer> second = CompletableFuture.supplyAsync(() -> startQuietly(jdbcUrl, backend, "b"));
    PagingServer a = first.join();
    PagingServer b = second.join();
    open.add(a);
    open.add(b);
    a.expect(200, "POST", "/iceberg/v1/main/namespaces", "{\"namespace\":[\"db\"]}");
    for (String t : List.of("t0", "t1", "t2")) {
      a.expect(200, "POST", "/iceberg/v1/main/namespaces/db/tables", String.format(
          "{\"name\":\"%s\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"id\","
              + "\"required\":true,\"type\":\"long\"}]}}", t));
    }
    String fromA = a.page(tablesOf("main"), 1, null).next();
    PagingServer.Page onB = b.page(tablesOf("main"), 1, fromA);
    assertThat(onB.keys()).containsExactly("t1");
    assertThat(a.page(tablesOf("main"), 1, onB.next()).keys()).containsExactly("t2");
    // and the store's tokens
    for (String k : List.of("k0", "k1", "k2")) {
      a.expect(201, "PUT", "/store/v1/records/team/c/" + k, "{\"kind\":\"document\",\"body\":{\"text\":\"x\"},\"meta\":{\"author\":\"alice\"}}");
    }
    String storeToken = JSON.readTree(a.expect(200, "GET", "/store/v1/records/team?pageSize=1", null).body())
        .get("nextPageToken").asText();
    assertThat(b.send("GET", "/store/v1/records/team?pageSize=1&pageToken=" + storeToken, null).statusCode())
        .isEqualTo(200);
  }

  private PagingServer startQuietly(String jdbcUrl, String backend, String sub) {
    try {
      return new PagingServer(jdbcUrl, backend, dir.resolve(sub));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql"})
  void aStoreTokenOfAnotherNamespaceTamperedOrUnsignedIsRefused(String backend) throws Exception {
    PagingServer s = start(null, backend, dir);
    for (String ns : List.of("a", "b")) {
      for (String k : List.of("k0", "k1", "k2")) {
        s.expect(201, "PUT", "/store/v1/records/" + ns + "/c/" + k, "{\"kind\":\"document\",\"body\":{\"text\":\"x\"},\"meta\":{\"author\":\"alice\"}}");
      }
    }
    String token = JSON.readTree(s.expect(200, "GET", "/store/v1/records/a?pageSize=1", null).body())
        .get("nextPageToken").asText();
    assertThat(s.send("GET", "/store/v1/records/a?pageSize=1&pageToken=" + token, null).statusCode()).isEqualTo(200);
    assertRefused(s.send("GET", "/store/v1/records/b?pageSize=1&pageToken=" + token, null));
    assertRefused(s.send("GET", "/store/v1/raw/records/a?pageSize=1&pageToken=" + token, null));
    int dot = token.indexOf('.');
    assertThat(dot).isPositive();
    String text = new String(UNB64.decode(token.substring(0, dot)), StandardCharsets.UTF_8);
    // the key edited within the listing's scope, the signature kept
    String edited = B64.encodeToString(text.replace("a/c/k0", "a/c/k1").getBytes(StandardCharsets.UTF_8))
        + token.substring(dot);
    assertRefused(s.send("GET", "/store/v1/records/a?pageSize=1&pageToken=" + edited, null));
    // moved to namespace b with the signature kept
    String moved = B64.encodeToString(text.replace("a/*", "b/*").replace("a/c/k0", "b/c/k0")
        .getBytes(StandardCharsets.UTF_8)) + token.substring(dot);
    assertRefused(s.send("GET", "/store/v1/records/b?pageSize=1&pageToken=" + moved, null));
    // the unsigned format: base64url of the text alone
    assertRefused(s.send("GET", "/store/v1/records/b?pageSize=1&pageToken="
        + B64.encodeToString("lethe-page-1\nlive\nb/*\nb/c/k0".getBytes(StandardCharsets.UTF_8)), null));
    // the blob listing's tokens are signed too
    assertRefused(s.send("GET", "/store/v1/blobs?pageToken="
        + B64.encodeToString(("lethe-page-1\nblobs\n*\n" + "0".repeat(64)).getBytes(StandardCharsets.UTF_8)), null));
  }

  @Test
  void theUnkeyedForgeryIsWhatTheOldServerAccepted() throws Exception {
    // the forgery above is built exactly as design 0403's check: a self-test of the helper
    String json = "{}";
    String token = unkeyed(json);
    assertThat(token).startsWith(B64.encodeToString(json.getBytes(StandardCharsets.UTF_8)) + ".");
    assertThat(UNB64.decode(token.substring(token.indexOf('.') + 1))).hasSize(9);
  }

  /** A token with design 0403's unkeyed check: the first 9 bytes of SHA-256 over a fixed tag and the body. */
  private static String unkeyed(String json) throws Exception {
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    sha.update("lethe-catalog-page\n".getBytes(StandardCharsets.UTF_8));
    byte[] check = Arrays.copyOf(sha.digest(json.getBytes(StandardCharsets.UTF_8)), 9);
    return B64.encodeToString(json.getBytes(StandardCharsets.UTF_8)) + "." + B64.encodeToString(check);
  }
}
