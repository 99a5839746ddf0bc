package dev.lethe.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.config.ConfigException;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.ServerConfigLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code lethe.store.uri=git:DIR}: the server serves a git work tree, one commit per write. */
class GitStoreServerTest {

  @TempDir Path dir;

  private LetheServer start(Map<String, String> props) {
    Map<String, String> all = new HashMap<>(props);
    all.put(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0");
    return LetheServer.start(new ServerConfig("127.0.0.1", 0, dir, null, null, null, 4, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, all));
  }

  @Test
  void aGitStoreUriServesThatWorkTreeWithOneCommitPerWriteAndTheDeleteInTheFileLog() throws Exception {
    Path repo = dir.resolve("notes");
    try (LetheServer server = start(Map.of(ConfigKeys.STORE_URI, "git:" + repo))) {
      ServerHttp http = new ServerHttp(server);
      assertThat(http.send("PUT", "/store/v1/records/n/c/r", "{\"body\":{\"text\":\"v\"},\"meta\":{\"author\":\"ann\"}}",
          Map.of()).statusCode()).isEqualTo(201);
      assertThat(http.send("DELETE", "/store/v1/records/n/c/r", null, Map.of()).statusCode()).isEqualTo(200);
      assertThat(http.send("GET", "/store/v1/records/n/c/r", null, Map.of()).statusCode()).isEqualTo(404);
    }
    try (Git git = Git.open(repo.toFile())) {
      List<String> log = new ArrayList<>();
      for (RevCommit c : git.log().addPath("n/c/r.json").call()) {
        log.add(c.getShortMessage());
      }
      assertThat(log).containsExactly("delete n/c/r", "put n/c/r");
      assertThat(git.status().call().isClean()).isTrue();
    }
  }

  @Test
  void aGitStoreUriWithNoDirectoryOrADirectoryThatIsNotAWorkTreeStopsTheServerNamingTheKey() throws Exception {
    Path project = Files.createDirectories(dir.resolve("project"));
    Files.writeString(project.resolve("README"), "x");
    for (String uri : List.of("git:", "git:" + project)) {
      assertThatThrownBy(() -> ServerConfigLoader.load(Map.of(ConfigKeys.STORE_URI, uri), Map.of(), null))
          .as(uri).isInstanceOf(ConfigException.class).hasMessageContaining("lethe.store.uri");
    }
    assertThat(project.resolve(".git")).doesNotExist();
  }
}
