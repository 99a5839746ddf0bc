package dev.lethe.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@code lethe server} processes on one PostgreSQL catalog with no store configured serve one
 * store (docs/design/0434-one-store-for-every-replica.md, docs/deploy.md): a record and a tombstone
 * written through one are read through the other, and a process whose old default store holds
 * records exits 2 naming the ways out.
 */
class ReplicasShareOneStoreProcessTest {
  private static final String DRAFT = "{\"body\":{\"text\":\"v\"}}";

  @TempDir Path dir;
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private Backends.Fresh fresh;

  @AfterEach
  void cleanUp() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    if (fresh != null) {
      fresh.drop();
    }
  }

  private LetheProcess server(Path dataDir, List<String> args) throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    LetheProcess p = LetheProcess.start(port, dataDir, dataDir.resolve("server.log"), args,
        Map.of("LETHE_STORE_GRPC_PORT", "0"));
    closeables.add(0, p);
    return p;
  }

  private static HttpResponse<String> send(LetheProcess p, String method, String path, String body) throws Exception {
    return AsyncPurgeHttp.send("http://127.0.0.1:" + p.port(), method, path, body, Map.of());
  }

  @Test
  void aRecordAndATombstoneWrittenThroughOneReplicaAreReadThroughTheOther() throws Exception {
    fresh = Backends.createOrSkip("postgresql");
    LetheProcess a = server(dir.resolve("a"), List.of("--jdbc-url", fresh.jdbcUrl()));
    LetheProcess b = server(dir.resolve("b"), List.of("--jdbc-url", fresh.jdbcUrl()));

    HttpResponse<String> put = send(a, "PUT", "/store/v1/records/n/c/r", DRAFT);
    assertThat(put.statusCode()).isEqualTo(201);
    HttpResponse<String> read = send(b, "GET", "/store/v1/records/n/c/r", null);
    assertThat(read.statusCode()).isEqualTo(200);
    assertThat(AsyncPurgeHttp.JSON.readTree(read.body())).isEqualTo(AsyncPurgeHttp.JSON.readTree(put.body()));

    HttpResponse<String> del = send(b, "DELETE", "/store/v1/records/n/c/r", null);
    assertThat(del.statusCode()).isEqualTo(200);
    assertThat(send(a, "GET", "/store/v1/records/n/c/r", null).statusCode()).isEqualTo(404);
    JsonNode tombstone = AsyncPurgeHttp.JSON.readTree(send(a, "GET", "/store/v1/raw/records/n/c/r", null).body());
    assertThat(tombstone).isEqualTo(AsyncPurgeHttp.JSON.readTree(del.body()));
    assertThat(tombstone.get("deletedAt").isNumber()).isTrue();

    // both start lines name the one store, and neither warns about a local one
    for (LetheProcess p : List.of(a, b)) {
      assertThat(p.log()).contains("(store=jdbc:postgresql:").doesNotContain("is local to this server");
    }
    assertThat(dir.resolve("a/store/n")).doesNotExist();
    assertThat(dir.resolve("b/store/n")).doesNotExist();
  }

  @Test
  void aReplicaWhoseOldDefaultStoreHoldsRecordsExits2SayingHowToChoose() throws Exception {
    fresh = Backends.createOrSkip("postgresql");
    Path data = dir.resolve("a");
    Files.createDirectories(data.resolve("store/n/c"));
    Files.writeString(data.resolve("store/n/c/r.json"), "{}");
    assertThatThrownBy(() -> server(data, List.of("--jdbc-url", fresh.jdbcUrl())))
        .hasMessageContaining("exited with 2")
        .hasMessageContaining("lethe.store.uri=file:" + data.toAbsolutePath().normalize().resolve("store"))
        .hasMessageContaining("lethe store sync");
    // choosing the local store starts it, with one warning naming both
    LetheProcess kept = server(data, List.of("--jdbc-url", fresh.jdbcUrl(),
        "--store-uri", "file:" + data.toAbsolutePath().normalize().resolve("store")));
    assertThat(kept.log().lines().filter(l -> l.contains("WARN") && l.contains("is local to this server")).toList())
        .singleElement().asString().contains("file:" + data.toAbsolutePath().normalize().resolve("store"))
        .contains("jdbc:postgresql:");
  }
}
