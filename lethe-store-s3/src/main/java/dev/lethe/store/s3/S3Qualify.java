package dev.lethe.store.s3;

import dev.lethe.store.s3.qualify.Property;
import dev.lethe.store.s3.qualify.Qualification;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Runs the {@link Qualification} probe against an S3 store's server and records its verdict under
 * the store's prefix, at {@code <prefix>/lethe/qualify-s3-verdict.txt}, where {@code lethe server}
 * on that store finds it (docs/design/0131-qualify-s3-probe.md).
 */
public final class S3Qualify {

  /** Object key of the recorded verdict, under the store's prefix. */
  public static final String VERDICT = "lethe/qualify-s3-verdict.txt";

  private S3Qualify() {}

  /**
   * The probe's outcome.
   *
   * @param properties one per promise, in the probe's order
   */
  public record Report(List<Property> properties) {
    /** Whether every promise held. */
    public boolean qualified() {
      return properties.stream().allMatch(Property::holds);
    }

    /** The closing line: {@code verdict: qualified} or {@code verdict: not qualified (…)}. */
    public String verdictLine() {
      return "verdict: " + (qualified() ? "qualified"
          : "not qualified (failed: " + String.join(", ", properties.stream().filter(p -> !p.holds())
              .map(Property::name).toList()) + "); a store on this server must have one writer");
    }
  }

  /**
   * Runs the probe on the server of {@code uri} and records the verdict there.
   *
   * @param racers concurrent writers per round, at least 2
   * @param rounds rounds per property, at least 1
   * @throws IllegalArgumentException for a malformed URI or setting, or racers/rounds out of range
   * @throws UncheckedIOException naming the store when the bucket cannot be reached or a request fails
   */
  public static Report run(String uri, Map<String, String> settings, Map<String, String> environment, int racers,
      int rounds, Clock clock) {
    S3Location location = S3Location.parse(uri);
    S3Settings resolved = S3Settings.resolve(location, settings, environment);
    Qualification.checkCounts(racers, rounds);
    try (S3Client client = resolved.client()) {
      try {
        client.headBucket(b -> b.bucket(location.bucket()));
      } catch (SdkException e) {
        throw new UncheckedIOException("Cannot open store " + location, new IOException(S3Errors.describe(e), e));
      }
      Qualification probe = new Qualification(new S3ConditionalObjects(client, location.bucket()), location.base(), racers, rounds);
      Report report = new Report(probe.run());
      StringBuilder text = new StringBuilder("recorded: " + Instant.ofEpochMilli(clock.millis()) + "\n");
      text.append("endpoint: ").append(resolved.endpoint().map(Object::toString).orElse("AWS " + resolved.region()))
          .append("\n");
      report.properties().forEach(p -> text.append(p.line()).append("\n"));
      text.append(report.verdictLine()).append("\n");
      try {
        client.putObject(b -> b.bucket(location.bucket()).key(location.base() + VERDICT).contentType("text/plain"),
            RequestBody.fromString(text.toString(), StandardCharsets.UTF_8));
      } catch (SdkException e) {
        throw new UncheckedIOException("Cannot record the verdict in " + location, new IOException(S3Errors.describe(e), e));
      }
      return report;
    }
  }

  /**
   * Returns one line for a server's log: the last recorded verdict of {@code store}'s server, or
   * that none was recorded. Never fails: a verdict that cannot be read is reported as such.
   */
  public static String lastVerdict(S3Store store) {
    String key = store.location().base() + VERDICT;
    Optional<byte[]> text;
    try {
      text = new S3ConditionalObjects(store.client(), store.location().bucket()).read(key);
    } catch (UncheckedIOException e) {
      return "S3 store " + store + ": cannot read the last qualify-s3 verdict: " + e.getCause().getMessage();
    }
    if (text.isEmpty()) {
      return "S3 store " + store + ": no qualify-s3 verdict recorded (run 'lethe store qualify-s3 --store " + store
          + "'); until the server qualifies, this store must have one writer";
    }
    String recorded = "";
    String verdict = "verdict: unknown";
    for (String line : new String(text.get(), StandardCharsets.UTF_8).split("\n")) {
      if (line.startsWith("recorded: ")) {
        recorded = line.substring("recorded: ".length());
      } else if (line.startsWith("verdict: ")) {
        verdict = line;
      }
    }
    return "S3 store " + store + ": last qualify-s3 " + verdict + " (recorded " + recorded + ")";
  }
}
