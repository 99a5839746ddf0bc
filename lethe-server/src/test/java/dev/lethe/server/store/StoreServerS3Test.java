package dev.lethe.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.server.LetheServer;
import dev.lethe.server.config.ServerConfig;
import dev.lethe.server.ServerHttp;
import dev.lethe.server.config.ConfigException;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.format.RecordJson;
import dev.lethe.store.s3.S3Settings;
import dev.lethe.store.s3.S3Store;
import dev.lethe.store.s3.testing.S3TestServer;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.lethe.store.s3.S3Qualify;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.junit.jupiter.api.io.TempDir;

/** {@code lethe.store.uri=s3://…}: servers fronting one bucket prefix (S3Mock), and bad S3 settings. */
class StoreServerS3Test {

  private static final S3TestServer S3 = S3TestServer.get();
  private static final String DRAFT = "{\"body\":{\"text\":\"v\"}}";

  @TempDir Path dir;

  private LetheServer start(Path data, Map<String, String> props) {
    Map<String, String> all = new HashMap<>(props);
    all.put(ConfigKeys.ASYNC_PURGE_WORKER_THREADS, "0");
    return LetheServer.start(new ServerConfig("127.0.0.1", 0, data, null, null, null, 4, null,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, null, all));
  }

  private Map<String, String> s3(String uri) {
    Map<String, String> props = new HashMap<>(S3.settings());
    props.put(ConfigKeys.STORE_URI, uri);
    return props;
  }

  @Test
  void twoServersOnOneS3PrefixServeOneStoreAndADeleteOnOneHidesTheRecordOnTheOther() throws Exception {
    String uri = S3.freshUri();
    try (LetheServer a = start(dir.resolve("a"), s3(uri)); LetheServer b = start(dir.resolve("b"), s3(uri))) {
      ServerHttp httpA = new ServerHttp(a);
      ServerHttp httpB = new ServerHttp(b);
      HttpResponse<String> put = httpA.send("PUT", "/store/v1/records/n/c/r", DRAFT, Map.of());
      assertThat(put.statusCode()).isEqualTo(201);
      assertThat(httpB.send("GET", "/store/v1/records/n/c/r", null, Map.of()).statusCode()).isEqualTo(200);
      // a create of the same key through the other server is refused: it exists
      assertThat(httpB.send("PUT", "/store/v1/records/n/c/r", DRAFT, Map.of()).statusCode()).isEqualTo(409);
      assertThat(httpB.send("DELETE", "/store/v1/records/n/c/r", null, Map.of()).statusCode()).isEqualTo(200);
      assertThat(httpA.send("GET", "/store/v1/records/n/c/r", null, Map.of()).statusCode()).isEqualTo(404);
      try (S3Store direct = S3Store.open(uri, S3.settings(), Map.of(), 32, Clock.systemUTC())) {
        assertThat(direct.getRaw(new RecordKey("n", "c", "r")).orElseThrow().isTombstone()).isTrue();
        assertThat(direct.getRaw(new RecordKey("n", "c", "r")).orElseThrow().parent())
            .isEqualTo(new RecordJson().parse(put.body()).revision());
      }
    }
  }

  @Test
  void theServerLogsTheLastRecordedProbeVerdictOfItsS3StoreOrThatNoneWasRecorded() throws Exception {
    String uri = S3.freshUri();
    Logger log = (Logger) LoggerFactory.getLogger(LetheServer.class);
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    log.addAppender(lines);
    ch.qos.logback.classic.Level level = log.getLevel();
    log.setLevel(ch.qos.logback.classic.Level.INFO);
    try {
      try (LetheServer a = start(dir.resolve("a"), s3(uri))) {
        assertThat(lines.list).extracting(ILoggingEvent::getFormattedMessage).anyMatch(m -> m.startsWith(
            "S3 store s3://lethe-test/") && m.contains(": no qualify-s3 verdict recorded"));
      }
      S3Qualify.Report report = S3Qualify.run(uri, S3.settings(), Map.of(), 2, 1, Clock.systemUTC());
      lines.list.clear();
      try (LetheServer b = start(dir.resolve("b"), s3(uri))) {
        assertThat(lines.list).extracting(ILoggingEvent::getFormattedMessage).anyMatch(m -> m.contains(
            ": last qualify-s3 " + report.verdictLine() + " (recorded 20"));
      }
    } finally {
      log.setLevel(level);
      log.detachAppender(lines);
    }
  }

  @Test
  void aMalformedS3StoreUriOrSettingIsAConfigErrorNamingTheKey() {
    assertThatThrownBy(() -> start(dir.resolve("x"), s3("s3://Bad_Bucket/p")))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("Invalid lethe.store.uri: Invalid S3 store URI 's3://Bad_Bucket/p': bucket");
    Map<String, String> noSecret = s3(S3.freshUri());
    noSecret.remove(S3Settings.SECRET_ACCESS_KEY);
    assertThatThrownBy(() -> start(dir.resolve("y"), noSecret))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("lethe.store.s3.access-key-id and lethe.store.s3.secret-access-key must be given together");
  }

  @Test
  void aBucketThatDoesNotExistStopsTheStartNamingTheStore() {
    String uri = "s3://no-such-" + UUID.randomUUID().toString().substring(0, 8) + "/p?endpoint=" + S3.endpoint();
    assertThatThrownBy(() -> start(dir.resolve("z"), s3(uri)))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageStartingWith("Cannot open store s3://no-such-")
        .hasRootCauseInstanceOf(software.amazon.awssdk.services.s3.model.S3Exception.class)
        .satisfies(e -> assertThat(e.getCause()).hasMessage("the bucket does not exist"));
  }
}
