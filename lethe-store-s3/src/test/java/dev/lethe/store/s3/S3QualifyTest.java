package dev.lethe.store.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.s3.qualify.Property;
import dev.lethe.store.s3.testing.S3TestServer;
import java.time.Clock;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.S3Object;

/** The probe against S3Mock: its verdict is printed, whatever it is, and it cleans up after itself. */
class S3QualifyTest {

  private static final S3TestServer S3 = S3TestServer.get();

  @Test
  void theProbeOnS3MockPrintsOneLinePerPropertyRecordsItsVerdictAndLeavesOnlyTheVerdict() {
    String prefix = "t-" + UUID.randomUUID();
    String uri = S3TestServer.uri(S3.endpoint(), prefix);
    try (S3Store store = S3Store.open(uri, S3.settings(), Map.of(), 32, Clock.systemUTC())) {
      assertThat(S3Qualify.lastVerdict(store)).startsWith("S3 store s3://lethe-test/" + prefix
          + ": no qualify-s3 verdict recorded");
      S3Qualify.Report report = S3Qualify.run(uri, S3.settings(), Map.of(), 32, 5, Clock.systemUTC());
      report.properties().forEach(p -> System.out.println("qualify-s3 on S3Mock: " + p.line()));
      System.out.println("qualify-s3 on S3Mock: " + report.verdictLine());
      assertThat(report.properties()).extracting(Property::name).containsExactly("create-if-absent",
          "update-if-match", "delete-if-match-vs-create", "if-match-on-missing-key");
      // sequential semantics S3Mock does honour
      assertThat(report.properties().get(3).holds()).isTrue();
      assertThat(S3.client().listObjectsV2Paginator(b -> b.bucket(S3TestServer.BUCKET).prefix(prefix + "/"))
          .contents().stream().map(S3Object::key)).containsExactly(prefix + "/" + S3Qualify.VERDICT);
      assertThat(S3Qualify.lastVerdict(store)).startsWith("S3 store s3://lethe-test/" + prefix + ": last qualify-s3 "
          + report.verdictLine() + " (recorded 20");
    }
  }
}
