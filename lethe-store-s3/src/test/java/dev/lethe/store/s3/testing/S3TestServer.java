package dev.lethe.store.s3.testing;

import com.adobe.testing.s3mock.S3MockApplication;
import dev.lethe.store.s3.S3Settings;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * One S3Mock server per test JVM, started on an ephemeral port at first use, with one bucket,
 * {@value #BUCKET}. Every store a test opens gets a fresh prefix ({@link #freshUri}), so tests never
 * see each other's keys. S3Mock honours conditional requests one at a time but is not atomic under
 * races: tests assert races only through the probe's counts.
 */
public final class S3TestServer {

  /** The bucket every test store lives in. */
  public static final String BUCKET = "lethe-test";
  /** The static test credentials S3Mock accepts (any are accepted). */
  public static final String ACCESS_KEY = "lethe-test-key";

  private static S3TestServer instance;

  private final S3MockApplication app;
  private final URI endpoint;
  private final S3Client client;

  private S3TestServer() throws Exception {
    // hadoop-client-runtime (on some modules' test classpath) registers its shaded, older Woodstox
    // as the StAX service; S3Mock's Jackson XML needs the real one, so name it before the lookup
    for (String api : new String[] {"XMLInputFactory", "XMLOutputFactory", "XMLEventFactory"}) {
      System.setProperty("javax.xml.stream." + api, "com.ctc.wstx.stax.Wstx" + api.substring(3));
    }
    Path root = Files.createTempDirectory("lethe-s3mock");
    Map<String, Object> props = new HashMap<>();
    props.put(S3MockApplication.PROP_HTTP_PORT, S3MockApplication.RANDOM_PORT);
    props.put(S3MockApplication.PROP_HTTPS_PORT, S3MockApplication.RANDOM_PORT);
    props.put(S3MockApplication.PROP_SILENT, true);
    props.put("com.adobe.testing.s3mock.store.root", root.toString());
    app = S3MockApplication.start(props);
    endpoint = URI.create("http://127.0.0.1:" + app.getHttpPort());
    client = client(endpoint);
    client.createBucket(b -> b.bucket(BUCKET));
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      client.close();
      app.stop();
    }, "s3mock-stop"));
  }

  /** Returns the JVM's server, starting it on first use. */
  public static synchronized S3TestServer get() {
    if (instance == null) {
      try {
        instance = new S3TestServer();
      } catch (Exception e) {
        throw new IllegalStateException("Cannot start S3Mock", e);
      }
    }
    return instance;
  }

  /** Returns a raw SDK client of {@code endpoint} with the test credentials, path-style. */
  public static S3Client client(URI endpoint) {
    return S3Client.builder()
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .forcePathStyle(true)
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, "secret")))
        .build();
  }

  /** The server's endpoint, {@code http://127.0.0.1:PORT}. */
  public URI endpoint() {
    return endpoint;
  }

  /** A raw client of the server, for tests that look behind the store. */
  public S3Client client() {
    return client;
  }

  /** {@code lethe.store.s3.*} settings with the test credentials. */
  public Map<String, String> settings() {
    return Map.of(S3Settings.ACCESS_KEY_ID, ACCESS_KEY, S3Settings.SECRET_ACCESS_KEY, "secret");
  }

  /** A store URI of a prefix no other test uses, naming the endpoint as a URI parameter. */
  public String freshUri() {
    return uri(endpoint, "t-" + UUID.randomUUID());
  }

  /**
   * A store URI in a bucket of its own. S3Mock rewrites a bucket-wide index on every PUT, so a
   * bucket holding a whole suite's objects slows every write and, under concurrent writers, held
   * a GET past the client's 60 s read timeout; a suite that opens many stores uses this.
   */
  public String freshBucketUri() {
    String bucket = "b-" + UUID.randomUUID();
    client.createBucket(b -> b.bucket(bucket));
    return "s3://" + bucket + "/p?endpoint=" + endpoint;
  }

  /** {@code s3://BUCKET/prefix?endpoint=…}. */
  public static String uri(URI endpoint, String prefix) {
    return "s3://" + BUCKET + "/" + prefix + "?endpoint=" + endpoint;
  }
}
