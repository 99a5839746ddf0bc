package dev.lethe.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.store.core.Body;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.Deleted;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.format.RecordJson;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Store grants over real HTTP (docs/design/0105-store-grants.md): every store route × {no token,
 * wrong token, read-only, other namespace, writer, admin} with its expected status; authorship
 * stamped for non-admins; a refused purge removes nothing; a 403 is the same whether the key
 * exists or not; tokens appear in no response.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StoreAuthMatrixTest {
  private static final RecordJson JSON = new RecordJson();

  /** Who calls, and the Authorization header it sends (null = none). */
  enum Caller {
    NONE(null), WRONG("Bearer wrong-token"), READER("Bearer reader-token"), OTHER("Bearer other-token"),
    WRITER("Bearer writer-token"), ADMIN("Bearer admin-token");

    final String header;

    Caller(String header) {
      this.header = header;
    }

    String id() {
      return name().toLowerCase();
    }
  }

  @TempDir static Path dir;
  LetheServer server;
  Store store;
  final HttpClient http = HttpClient.newHttpClient();
  final Map<Caller, Record> toDelete = new LinkedHashMap<>();
  final Map<Caller, Record> toPurge = new LinkedHashMap<>();
  final Map<Caller, String> blobToRemove = new LinkedHashMap<>();
  Record seed;
  String seedBlob;

  @BeforeAll
  void start() throws Exception {
    Path auth = dir.resolve("auth.yaml");
    Files.writeString(auth, "principals:\n"
        + principal("reader", "    store:\n      read: [team]\n")
        + principal("other", "    store:\n      read: [other]\n      write: [other]\n")
        + principal("writer", "    read: [main]\n    store:\n      read: [team]\n      write: [team]\n")
        + principal("admin", "    read: [\"*\"]\n    write: [\"*\"]\n"));
    server = LetheServer.start(new ServerConfig("127.0.0.1", 0, dir.resolve("data"), null, null, null, 4, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, auth, Map.of(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0")));
    store = server.store();
    seed = put(new RecordKey("team", "c", "seed"), "seed", "alice");
    seedBlob = store.blobs().put("seed blob".getBytes(StandardCharsets.UTF_8)).hash();
    for (Caller c : Caller.values()) {
      toDelete.put(c, put(new RecordKey("team", "c", "del-" + c.id()), "doomed", "alice"));
      Record live = put(new RecordKey("team", "c", "purge-" + c.id()), "doomed", "alice");
      toPurge.put(c, ((Deleted) store.delete(live.key(), Optional.empty())).tombstone().orElseThrow());
      blobToRemove.put(c, store.blobs().put(("gc me " + c.id()).getBytes(StandardCharsets.UTF_8)).hash());
    }
  }

  private static String principal(String name, String grants) {
    return "  - name: " + name + "\n    token-sha256: " + ContentHash.ofUtf8(name + "-token") + "\n" + grants;
  }

  @AfterAll
  void stop() {
    server.close();
  }

  private Record put(RecordKey key, String text, String author) {
    return ((Committed) store.put(Record.draft(key, Kind.DOCUMENT, Body.Inline.text(text), Meta.byAuthor(author)),
        Optional.empty())).record();
  }

  HttpResponse<String> send(Caller caller, String method, String path, String body, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (caller.header != null) {
      b.header("Authorization", caller.header);
    }
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static String rev(Revision r) {
    return "{\"counter\":" + r.counter() + ",\"hash\":\"" + r.hash() + "\"}";
  }

  /** A whole record for a raw put of {@code key}, claiming {@code author}. */
  static String rawRecord(RecordKey key, String author) {
    Record draft = Record.draft(key, Kind.DOCUMENT, Body.Inline.text("replicated"), Meta.byAuthor(author).withTimes(1L, 1L));
    return new String(JSON.encode(draft.withLineage(new Revision(1, draft.revision().hash()), null, List.of())),
        StandardCharsets.UTF_8);
  }

  /** {@link #rawRecord} as a format-2 build wrote it: its revision does not cover its author. */
  static String rawRecordV2(RecordKey key, String author) {
    Body body = Body.Inline.text("replicated");
    Record r = new Record(key, Kind.DOCUMENT, new Revision(1,
        dev.lethe.store.core.RevisionHash.of(dev.lethe.store.core.FormatVersion.V2, Kind.DOCUMENT, body)), null, List.of(),
        body, Meta.byAuthor(author).withTimes(1L, 1L), null, null, List.of(), dev.lethe.store.core.FormatVersion.V2);
    return new String(JSON.encode(r), StandardCharsets.UTF_8);
  }

  /** One route: a name, the request it sends for a caller, and the status each caller gets. */
  record Route(String name, Function<Caller, HttpResponse<String>> call, int reader, int other, int writer, int admin) {
    int expected(Caller c) {
      return switch (c) {
        case NONE, WRONG -> 401;
        case READER -> reader;
        case OTHER -> other;
        case WRITER -> writer;
        case ADMIN -> admin;
      };
    }
  }

  interface Call {
    HttpResponse<String> send(Caller c) throws Exception;
  }

  static Function<Caller, HttpResponse<String>> call(Call call) {
    return c -> {
      try {
        return call.send(c);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    };
  }

  List<Route> routes() {
    String draft = "{\"body\":{\"text\":\"v\"},\"meta\":{\"author\":\"mallory\"}}";
    return List.of(
        new Route("GET /store/v1", call(c -> send(c, "GET", "/store/v1", null)), 200, 200, 200, 200),
        new Route("GET record", call(c -> send(c, "GET", "/store/v1/records/team/c/seed", null)), 200, 403, 200, 200),
        new Route("GET list namespace", call(c -> send(c, "GET", "/store/v1/records/team", null)), 200, 403, 200, 200),
        new Route("GET list collection", call(c -> send(c, "GET", "/store/v1/records/team/c", null)), 200, 403, 200, 200),
        new Route("GET list whole store", call(c -> send(c, "GET", "/store/v1/records", null)), 403, 403, 403, 200),
        new Route("PUT record", call(c -> send(c, "PUT", "/store/v1/records/team/c/put-" + c.id(), draft,
            "If-None-Match", "*")), 403, 403, 201, 201),
        new Route("DELETE record", call(c -> send(c, "DELETE", "/store/v1/records/team/c/del-" + c.id(),
            "{\"author\":\"mallory\"}", "If-Match", rev(toDelete.get(c).revision()))), 403, 403, 200, 200),
        new Route("GET raw record", call(c -> send(c, "GET", "/store/v1/raw/records/team/c/seed", null)), 200, 403, 200, 200),
        new Route("GET raw list namespace", call(c -> send(c, "GET", "/store/v1/raw/records/team", null)), 200, 403, 200, 200),
        new Route("GET raw list whole store", call(c -> send(c, "GET", "/store/v1/raw/records", null)), 403, 403, 403, 200),
        new Route("PUT raw record", call(c -> send(c, "PUT", "/store/v1/raw/records/team/c/raw-" + c.id(),
            rawRecordV2(new RecordKey("team", "c", "raw-" + c.id()), "mallory"))), 403, 403, 201, 201),
        new Route("POST raw batch", call(c -> send(c, "POST", "/store/v1/raw/batch/team",
            "[{\"record\":" + rawRecordV2(new RecordKey("team", "c", "batch-" + c.id()), "mallory") + "}]")),
            403, 403, 200, 200),
        new Route("POST purge", call(c -> send(c, "POST", "/store/v1/raw/purge/team/c/purge-" + c.id(), null,
            "If-Match", rev(toPurge.get(c).revision()))), 403, 403, 403, 204),
        new Route("PUT blob", call(c -> {
          String content = "uploaded by " + c.id();
          return send(c, "PUT", "/store/v1/blobs/" + ContentHash.ofUtf8(content), content);
        }), 403, 200, 200, 200),
        new Route("GET blob", call(c -> send(c, "GET", "/store/v1/blobs/" + seedBlob, null)), 200, 200, 200, 200),
        new Route("HEAD blob", call(c -> send(c, "HEAD", "/store/v1/blobs/" + seedBlob, null)), 200, 200, 200, 200),
        new Route("GET blob list", call(c -> send(c, "GET", "/store/v1/blobs", null)), 403, 403, 403, 200),
        new Route("DELETE blob", call(c -> send(c, "DELETE", "/store/v1/blobs/" + blobToRemove.get(c)
            + "?storedAtOrBefore=" + Long.MAX_VALUE, null)), 403, 403, 403, 200));
  }

  @Test
  void everyRouteAnswersEveryCallerAsTheGrantsSay() {
    List<String> mismatches = new ArrayList<>();
    int cells = 0;
    for (Route route : routes()) {
      for (Caller caller : Caller.values()) {
        HttpResponse<String> r = route.call().apply(caller);
        cells++;
        if (r.statusCode() != route.expected(caller)) {
          mismatches.add(route.name() + " as " + caller + ": " + r.statusCode() + " (expected " + route.expected(caller)
              + ") " + r.body());
        }
        assertThat(r.body()).doesNotContain("-token").doesNotContain(ContentHash.ofUtf8(caller.id() + "-token"));
        if (r.statusCode() == 401) {
          assertThat(r.headers().firstValue("WWW-Authenticate")).contains("Bearer realm=\"lethe\"");
        }
      }
    }
    assertThat(mismatches).isEmpty();
    assertThat(cells).isEqualTo(18 * 6);
    // what the refused calls did not do
    for (Caller c : List.of(Caller.NONE, Caller.WRONG, Caller.READER, Caller.OTHER)) {
      assertThat(store.getRaw(new RecordKey("team", "c", "put-" + c.id()))).as(c.id()).isEmpty();
      assertThat(store.getRaw(new RecordKey("team", "c", "raw-" + c.id()))).as(c.id()).isEmpty();
      assertThat(store.getRaw(new RecordKey("team", "c", "batch-" + c.id()))).as(c.id()).isEmpty();
      assertThat(store.get(toDelete.get(c).key())).as(c.id()).contains(toDelete.get(c));
      assertThat(store.blobs().contains(blobToRemove.get(c))).as(c.id()).isTrue();
    }
    for (Caller c : List.of(Caller.NONE, Caller.WRONG, Caller.READER, Caller.OTHER, Caller.WRITER)) {
      assertThat(store.getRaw(toPurge.get(c).key())).as("non-admin purge removes nothing: " + c.id())
          .contains(toPurge.get(c));
    }
    assertThat(store.getRaw(toPurge.get(Caller.ADMIN).key())).isEmpty();
  }

  @Test
  void aNonAdminsPutDeleteAndRawPutAreStampedWithItsOwnNameWhateverItClaims() throws Exception {
    HttpResponse<String> put = send(Caller.WRITER, "PUT", "/store/v1/records/team/c/forged-put",
        "{\"body\":{\"text\":\"v\"},\"meta\":{\"author\":\"alice\"}}");
    assertThat(put.statusCode()).as(put.body()).isEqualTo(201);
    assertThat(store.get(new RecordKey("team", "c", "forged-put")).orElseThrow().meta().author()).isEqualTo("writer");

    Record victim = put(new RecordKey("team", "c", "forged-delete"), "v", "alice");
    HttpResponse<String> delete = send(Caller.WRITER, "DELETE", "/store/v1/records/team/c/forged-delete",
        "{\"author\":\"alice\"}", "If-Match", rev(victim.revision()));
    assertThat(delete.statusCode()).as(delete.body()).isEqualTo(200);
    assertThat(store.getRaw(victim.key()).orElseThrow().meta().author()).isEqualTo("writer");

    // A format-3 revision covers its author: a record naming someone else is refused, not re-stamped.
    RecordKey raw = new RecordKey("team", "c", "forged-raw");
    HttpResponse<String> putRaw = send(Caller.WRITER, "PUT", "/store/v1/raw/records/team/c/forged-raw", rawRecord(raw, "alice"));
    assertThat(putRaw.statusCode()).as(putRaw.body()).isEqualTo(403);
    assertThat(putRaw.body()).contains("may raw put only records whose author is 'writer'").contains("names 'alice'");
    assertThat(store.getRaw(raw)).isEmpty();
    RecordKey own = new RecordKey("team", "c", "own-raw");
    assertThat(send(Caller.WRITER, "PUT", "/store/v1/raw/records/team/c/own-raw", rawRecord(own, "writer")).statusCode())
        .isEqualTo(201);
    assertThat(store.getRaw(own).orElseThrow().meta().author()).isEqualTo("writer");
    // a format-2 record (whose revision does not cover its author) is stamped as before
    RecordKey old = new RecordKey("team", "c", "forged-raw-v2");
    HttpResponse<String> putOld = send(Caller.WRITER, "PUT", "/store/v1/raw/records/team/c/forged-raw-v2",
        rawRecordV2(old, "alice"));
    assertThat(putOld.statusCode()).as(putOld.body()).isEqualTo(201);
    Record stored = store.getRaw(old).orElseThrow();
    assertThat(stored.meta().author()).isEqualTo("writer");
    assertThat(stored.revision().counter()).as("a raw put is otherwise verbatim").isEqualTo(1);

    RecordKey batched = new RecordKey("team", "c", "forged-batch");
    HttpResponse<String> batch = send(Caller.WRITER, "POST", "/store/v1/raw/batch/team",
        "[{\"record\":" + rawRecordV2(batched, "alice") + "}]");
    assertThat(batch.statusCode()).as(batch.body()).isEqualTo(200);
    assertThat(batch.body()).contains("\"status\":201");
    assertThat(store.getRaw(batched).orElseThrow().meta().author()).as("each batch item is stamped").isEqualTo("writer");
    RecordKey batched3 = new RecordKey("team", "c", "forged-batch3");
    HttpResponse<String> batch3 = send(Caller.WRITER, "POST", "/store/v1/raw/batch/team",
        "[{\"record\":" + rawRecord(batched3, "alice") + "}]");
    assertThat(batch3.statusCode()).as(batch3.body()).isEqualTo(403);
    assertThat(store.getRaw(batched3)).isEmpty();

    // a put with no claim is the writer's too
    HttpResponse<String> unclaimed = send(Caller.WRITER, "PUT", "/store/v1/records/team/c/unclaimed", "{\"body\":{\"text\":\"v\"}}");
    assertThat(unclaimed.statusCode()).isEqualTo(201);
    assertThat(store.get(new RecordKey("team", "c", "unclaimed")).orElseThrow().meta().author()).isEqualTo("writer");
  }

  @Test
  void anAdminKeepsAClaimedAuthorOrIsStampedAsItself() throws Exception {
    assertThat(send(Caller.ADMIN, "PUT", "/store/v1/records/team/c/admin-claim",
        "{\"body\":{\"text\":\"v\"},\"meta\":{\"author\":\"alice\"}}").statusCode()).isEqualTo(201);
    assertThat(store.get(new RecordKey("team", "c", "admin-claim")).orElseThrow().meta().author()).isEqualTo("alice");
    assertThat(send(Caller.ADMIN, "PUT", "/store/v1/records/team/c/admin-none", "{\"body\":{\"text\":\"v\"}}")
        .statusCode()).isEqualTo(201);
    assertThat(store.get(new RecordKey("team", "c", "admin-none")).orElseThrow().meta().author()).isEqualTo("admin");

    Record r = put(new RecordKey("team", "c", "admin-delete"), "v", "alice");
    assertThat(send(Caller.ADMIN, "DELETE", "/store/v1/records/team/c/admin-delete", null, "If-Match", rev(r.revision()))
        .statusCode()).isEqualTo(200);
    assertThat(store.getRaw(r.key()).orElseThrow().meta().author()).isEqualTo("admin");

    RecordKey raw = new RecordKey("team", "c", "admin-raw");
    assertThat(send(Caller.ADMIN, "PUT", "/store/v1/raw/records/team/c/admin-raw", rawRecord(raw, "alice")).statusCode())
        .isEqualTo(201);
    assertThat(store.getRaw(raw).orElseThrow().meta().author()).as("the replication credential carries authorship")
        .isEqualTo("alice");
  }

  @Test
  void aRefusalIsTheSameWhetherTheKeyExistsOrNot() throws Exception {
    for (String method : List.of("GET", "PUT", "DELETE")) {
      String body = method.equals("PUT") ? "{\"body\":{\"text\":\"v\"}}" : null;
      HttpResponse<String> existing = send(Caller.OTHER, method, "/store/v1/records/team/c/seed", body);
      HttpResponse<String> absent = send(Caller.OTHER, method, "/store/v1/records/team/c/never-written", body);
      assertThat(existing.statusCode()).isEqualTo(403);
      assertThat(absent.statusCode()).isEqualTo(403);
      assertThat(existing.body()).isEqualTo(absent.body());
    }
    HttpResponse<String> rawExisting = send(Caller.OTHER, "GET", "/store/v1/raw/records/team/c/seed", null);
    HttpResponse<String> rawAbsent = send(Caller.OTHER, "GET", "/store/v1/raw/records/team/c/never-written", null);
    assertThat(rawExisting.body()).isEqualTo(rawAbsent.body());
    assertThat(rawExisting.body()).contains("'other'").contains("'team'").doesNotContain("seed");
  }

  @Test
  void listsShowOnlyGrantedNamespaces() throws Exception {
    put(new RecordKey("other", "c", "theirs"), "v", "bob");
    HttpResponse<String> own = send(Caller.OTHER, "GET", "/store/v1/records/other", null);
    assertThat(own.statusCode()).isEqualTo(200);
    assertThat(own.body()).contains("other/c/theirs").doesNotContain("team/");
    HttpResponse<String> team = send(Caller.READER, "GET", "/store/v1/raw/records/team/c?pageSize=1000", null);
    assertThat(team.statusCode()).isEqualTo(200);
    assertThat(team.body()).contains("team/c/seed").doesNotContain("other/c/theirs");
    assertThat(send(Caller.READER, "GET", "/store/v1/records/other", null).statusCode()).isEqualTo(403);
    assertThat(send(Caller.READER, "GET", "/store/v1/raw/records", null).statusCode()).isEqualTo(403);
    HttpResponse<String> all = send(Caller.ADMIN, "GET", "/store/v1/records?pageSize=1000", null);
    assertThat(all.body()).contains("team/c/seed").contains("other/c/theirs");
  }
}
