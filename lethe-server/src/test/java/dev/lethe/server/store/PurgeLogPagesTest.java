package dev.lethe.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.format.StrictJson;
import dev.lethe.store.core.ledger.Ledger;
import dev.lethe.store.core.ledger.PurgeEntry;
import dev.lethe.store.core.ledger.PurgeLogPage;
import dev.lethe.store.grpc.GrpcStore;
import dev.lethe.store.remote.RemoteStore;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Purge-log reads are paged (docs/design/0157-purge-log-pages.md), against a real server whose log
 * is larger than one page: the HTTP and gRPC clients walk the pages to exactly the served log; a
 * page is at most {@link PurgeLogPage#MAX_SIZE} entries; a token edited, of another scope, or made
 * stale by a trim is refused, and a walk that meets a trim starts again and misses nothing; a
 * client that does not page still gets the whole log.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PurgeLogPagesTest {

  private static final int ENTRIES = PurgeLogPage.MAX_SIZE + 234;

  @TempDir static Path dir;
  LetheServer server;
  Store store;
  RemoteStore http;
  GrpcStore grpc;
  final HttpClient client = HttpClient.newHttpClient();

  @BeforeAll
  void start() throws Exception {
    Path auth = dir.resolve("auth.yaml");
    Files.writeString(auth, "principals:\n  - name: admin\n    token-sha256: " + ContentHash.ofUtf8("admin-token")
        + "\n    read: [\"*\"]\n    write: [\"*\"]\n");
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 4, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, auth, Map.of(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0")));
    store = server.store();
    Ledger served = store.ledger();
    Revision deleted = new Revision(1, "a".repeat(64));
    for (int i = 0; i < ENTRIES; i++) {
      // the served store's own log, written as its purges write it (entries only: no tombstones needed)
      RecordKey key = new RecordKey(i % 3 == 0 ? "team" : "other", i % 2 == 0 ? "c" : "d", "k" + i);
      served.appendPurged(new PurgeEntry(key, new Revision(2, dev.lethe.store.core.tombstone.Tombstones.HASH), deleted,
          List.of(), 1000L + i, 2000L + i));
    }
    http = RemoteStore.open("http://127.0.0.1:" + server.port(), Optional.of("admin-token"));
    grpc = GrpcStore.open(server.grpcStoreUri(), Optional.of("admin-token"));
  }

  @AfterAll
  void stop() {
    grpc.close();
    server.close();
  }

  @Test
  void theHttpAndGrpcClientsWalkMoreThanOnePageToExactlyTheServedLog() {
    for (KeyPrefix prefix : List.of(KeyPrefix.all(), new KeyPrefix("team", null), new KeyPrefix("other", "d"))) {
      List<PurgeEntry> expected = store.ledger().purged(prefix);
      assertThat(http.ledger().purged(prefix)).as("HTTP %s", prefix).isEqualTo(expected);
      assertThat(grpc.ledger().purged(prefix)).as("gRPC %s", prefix).isEqualTo(expected);
    }
    assertThat(store.ledger().purged(KeyPrefix.all())).hasSizeGreaterThan(PurgeLogPage.MAX_SIZE); // the trim test may have run first
    for (Ledger l : List.of(http.ledger(), grpc.ledger())) {
      PurgeLogPage first = l.purgedPage(KeyPrefix.all(), Optional.empty(), PurgeLogPage.MAX_SIZE);
      assertThat(first.entries()).hasSize(PurgeLogPage.MAX_SIZE);
      assertThat(first.next()).isPresent();
      assertThat(PurgeLogPage.walk(after -> l.purgedPage(new KeyPrefix("team", "c"), after, 7)))
          .isEqualTo(store.ledger().purged(new KeyPrefix("team", "c")));
      assertThatThrownBy(() -> l.purgedPage(KeyPrefix.all(), Optional.empty(), PurgeLogPage.MAX_SIZE + 1))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  private HttpResponse<String> get(String pathAndQuery) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/store/v1/ledger"
        + pathAndQuery)).header("Authorization", "Bearer admin-token").build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void overHttpAPageIsBoundedItsTokenSignedAndBoundToItsScopeAndAnUnpagedReadIsTheWholeLog() throws Exception {
    HttpResponse<String> whole = get("/purged");
    assertThat(whole.statusCode()).isEqualTo(200);
    JsonNode all = StrictJson.read(whole.body().getBytes(StandardCharsets.UTF_8), "reply");
    assertThat(all.path("entries")).hasSize(store.ledger().purged(KeyPrefix.all()).size());
    assertThat(all.has("nextPageToken")).isFalse();

    JsonNode page = StrictJson.read(get("/purged?pageSize=1000").body().getBytes(StandardCharsets.UTF_8), "reply");
    assertThat(page.path("entries")).hasSize(1000);
    String token = page.path("nextPageToken").textValue();
    assertThat(token).isNotBlank();
    JsonNode second = StrictJson.read(get("/purged?pageToken=" + URLEncoder.encode(token, StandardCharsets.UTF_8))
        .body().getBytes(StandardCharsets.UTF_8), "reply");
    assertThat(second.path("entries").size() + 1000).isEqualTo(store.ledger().purged(KeyPrefix.all()).size());
    assertThat(second.path("nextPageToken").isNull()).isTrue();

    String edited = token.substring(0, 3) + (token.charAt(3) == 'A' ? 'B' : 'A') + token.substring(4);
    for (String bad : List.of("/purged?pageToken=" + URLEncoder.encode(edited, StandardCharsets.UTF_8),
        "/purged/team?pageToken=" + URLEncoder.encode(token, StandardCharsets.UTF_8), "/purged?pageSize=0",
        "/purged?pageSize=1001")) {
      HttpResponse<String> r = get(bad);
      assertThat(r.statusCode()).as(bad).isEqualTo(400);
      assertThat(r.body()).as(bad).contains("\"message\"");
    }
  }

  /** A trim between two pages moves every position: the stale cursor is refused and the walk starts again. */
  @Test
  void aWalkThatMeetsATrimStartsAgainAndMissesNothing() {
    for (Ledger l : List.of(http.ledger(), grpc.ledger())) {
      long oldest = store.ledger().purged(KeyPrefix.all()).get(0).purgedAt();
      boolean[] trimmed = {false};
      List<Optional<String>> asked = new ArrayList<>();
      List<PurgeEntry> walked = PurgeLogPage.walk(after -> {
        asked.add(after);
        if (after.isPresent() && !trimmed[0]) {
          trimmed[0] = true;
          store.ledger().recordCollect(oldest + 1);
          assertThat(store.ledger().trimPurged(oldest + 1)).isEqualTo(1);
        }
        return l.purgedPage(KeyPrefix.all(), after, 500);
      });
      assertThat(walked).isEqualTo(store.ledger().purged(KeyPrefix.all()));
      assertThat(asked.stream().filter(Optional::isEmpty).count()).as("walks started").isEqualTo(2);
    }
  }
}
