package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.core.Record;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.format.RecordJson;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Two {@code lethe server} processes serving one PostgreSQL store ({@code --store-uri
 * jdbc:postgresql://…}), raced over HTTP by 16 clients at a time (issue 11): conditional writes
 * to one key let exactly one client win and answer every other one 409 with the winner's record;
 * purging a tombstone while it is being recreated never loses the recreation.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StoreRaceMultiProcessTest {
  private static final int CLIENTS = 16;
  private static final int ROUNDS = Integer.getInteger("lethe.it.store-race.rounds", 30);
  private static final RecordJson JSON = new RecordJson();

  private Backends.Fresh database;
  private final List<LetheProcess> servers = new ArrayList<>();
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);

  @BeforeAll
  void startTwoServersOnOneDatabase() throws Exception {
    database = Backends.createOrSkip("postgresql");
    Path work = Path.of(System.getProperty("lethe.it.work-dir", "target/it"), "store-race-" + System.nanoTime());
    for (int i = 0; i < 2; i++) {
      Path dataDir = work.resolve("server-" + i);
      servers.add(LetheProcess.start(StoreServerPool.freePort(), dataDir, work.resolve("server-" + i + ".log"),
          List.of("--store-uri", database.jdbcUrl()), Map.of("LETHE_ICEBERG_REST_ASYNC_PURGE_WORKER_THREADS", "0")));
    }
  }

  @AfterAll
  void stop() throws Exception {
    pool.shutdownNow();
    for (LetheProcess s : servers) {
      s.close();
    }
    if (database != null) {
      database.drop();
    }
  }

  private HttpResponse<byte[]> send(int server, String method, String path, String body, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + servers.get(server).port() + path))
        .timeout(Duration.ofSeconds(30))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  private static String rev(Revision r) {
    return "{\"counter\":" + r.counter() + ",\"hash\":\"" + r.hash() + "\"}";
  }

  private static String draft(String text) {
    return "{\"body\":{\"text\":\"" + text + "\"}}";
  }

  private interface Request {
    HttpResponse<byte[]> send(int client) throws Exception;
  }

  /** Runs one request per client, all released together; returns the responses in client order. */
  private List<HttpResponse<byte[]>> race(Request request) throws Exception {
    CyclicBarrier start = new CyclicBarrier(CLIENTS);
    List<Future<HttpResponse<byte[]>>> futures = new ArrayList<>();
    for (int c = 0; c < CLIENTS; c++) {
      int client = c;
      futures.add(pool.submit(() -> {
        start.await(30, TimeUnit.SECONDS);
        return request.send(client);
      }));
    }
    List<HttpResponse<byte[]>> responses = new ArrayList<>();
    for (Future<HttpResponse<byte[]>> f : futures) {
      responses.add(f.get(60, TimeUnit.SECONDS));
    }
    return responses;
  }

  @Test
  void sixteenClientsWithTheSameIfMatchThroughTwoServersLetExactlyOneWin() throws Exception {
    String path = "/store/v1/records/race/put/k";
    HttpResponse<byte[]> created = send(0, "PUT", path, draft("seed"), "If-None-Match", "*");
    assertThat(created.statusCode()).isEqualTo(201);
    Record current = JSON.decode(created.body());
    for (int round = 0; round < ROUNDS; round++) {
      Revision expected = current.revision();
      int r = round;
      List<HttpResponse<byte[]>> responses = race(client ->
          send(client % 2, "PUT", path, draft("round-" + r + "-client-" + client), "If-Match", rev(expected)));
      List<Record> winners = new ArrayList<>();
      List<Record> conflicts = new ArrayList<>();
      for (HttpResponse<byte[]> res : responses) {
        assertThat(res.statusCode()).as("round %d: %s", round, new String(res.body())).isIn(200, 409);
        (res.statusCode() == 200 ? winners : conflicts).add(JSON.decode(res.body()));
      }
      assertThat(winners).as("round %d", round).hasSize(1);
      Record winner = winners.get(0);
      assertThat(winner.revision().counter()).isEqualTo(expected.counter() + 1);
      assertThat(winner.parent()).isEqualTo(expected);
      assertThat(conflicts).as("every loser is shown the winner's record").hasSize(CLIENTS - 1).allMatch(winner::equals);
      HttpResponse<byte[]> stored = send(round % 2, "GET", path, null);
      assertThat(JSON.decode(stored.body())).isEqualTo(winner);
      current = winner;
    }
  }

  @Test
  void purgingATombstoneWhileItIsRecreatedNeverLosesTheRecreation() throws Exception {
    int purgeWon = 0;
    int recreateWon = 0;
    for (int round = 0; round < ROUNDS; round++) {
      String path = "/store/v1/records/race/purge/k" + round;
      HttpResponse<byte[]> created = send(0, "PUT", path, draft("doomed"), "If-None-Match", "*");
      Record live = JSON.decode(created.body());
      HttpResponse<byte[]> deleted = send(1, "DELETE", path, null, "If-Match", rev(live.revision()));
      assertThat(deleted.statusCode()).isEqualTo(200);
      Record tombstone = JSON.decode(deleted.body());
      int r = round;
      // even clients purge the tombstone they saw, odd ones recreate the key; each pair spans both servers
      List<HttpResponse<byte[]>> responses = race(client -> client % 2 == 0
          ? send((client / 2) % 2, "POST", "/store/v1/raw/purge/race/purge/k" + r, null, "If-Match", rev(tombstone.revision()))
          : send((client / 2) % 2, "PUT", path, draft("recreated-by-" + client), "If-None-Match", "*"));
      List<Record> recreations = new ArrayList<>();
      List<Record> shown = new ArrayList<>();
      int purged = 0;
      for (int c = 0; c < CLIENTS; c++) {
        HttpResponse<byte[]> res = responses.get(c);
        String body = new String(res.body());
        if (c % 2 == 0) {
          assertThat(res.statusCode()).as("purge, round %d: %s", round, body).isIn(204, 409);
          if (res.statusCode() == 409) {
            shown.add(JSON.decode(res.body()));
          } else {
            purged++;
          }
        } else {
          assertThat(res.statusCode()).as("recreate, round %d: %s", round, body).isIn(201, 409);
          if (res.statusCode() == 201) {
            recreations.add(JSON.decode(res.body()));
          } else {
            shown.add(JSON.decode(res.body()));
          }
        }
      }
      assertThat(recreations).as("round %d: exactly one recreation", round).hasSize(1);
      Record winner = recreations.get(0);
      assertThat(shown).as("every refused call is shown the recreated record").allMatch(winner::equals);
      HttpResponse<byte[]> raw = send(round % 2, "GET", "/store/v1/raw/records/race/purge/k" + round, null);
      assertThat(raw.statusCode()).isEqualTo(200);
      assertThat(JSON.decode(raw.body())).as("round %d: the recreation survives every purge", round).isEqualTo(winner);
      if (winner.revision().counter() == 1) {
        // the tombstone was purged first: the key was absent and the recreation is a plain create
        assertThat(purged).isPositive();
        assertThat(winner.parent()).isNull();
        purgeWon++;
      } else {
        assertThat(winner.revision().counter()).isEqualTo(tombstone.revision().counter() + 1);
        assertThat(winner.parent()).isEqualTo(tombstone.revision());
        recreateWon++;
      }
    }
    System.out.printf("purge vs recreate: %d rounds purged first, %d recreated first%n", purgeWon, recreateWon);
  }
}
