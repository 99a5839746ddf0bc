package dev.lethe.cli.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.cli.LetheCommand;
import dev.lethe.store.s3.testing.S3TestServer;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import software.amazon.awssdk.services.s3.model.S3Object;

/** {@code lethe store …} with {@code s3://} store URIs against S3Mock. */
class StoreCliS3Test {

  record Run(int code, String out, String err) {}

  private static final S3TestServer S3 = S3TestServer.get();
  private static final String SECRET = "topsecret-" + UUID.randomUUID();
  /** Credentials as a user gives them to the CLI: environment variables named as the server's keys. */
  private static final Map<String, String> CREDENTIALS =
      Map.of("LETHE_STORE_S3_ACCESS_KEY_ID", "cli-key", "LETHE_STORE_S3_SECRET_ACCESS_KEY", SECRET);

  @TempDir Path dir;

  private Run runWith(Map<String, String> env, String stdin, String... args) {
    CommandLine cmd = LetheCommand.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cmd.setOut(new PrintWriter(out));
    cmd.setErr(new PrintWriter(err));
    cmd.getSubcommands().get("store").getSubcommands().values()
        .forEach(sub -> {
          if (sub.getCommand() instanceof StoreSubcommand s) {
            s.environment = env;
          }
        });
    if (stdin != null) {
      ((PutCommand) cmd.getSubcommands().get("store").getSubcommands().get("put").getCommand()).stdin =
          new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8));
    }
    int code = cmd.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  private Run run(String stdin, String... args) {
    return runWith(CREDENTIALS, stdin, args);
  }

  private static String[] args(String sub, String store, String... more) {
    List<String> a = new ArrayList<>(List.of("store", sub, "--store", store));
    a.addAll(List.of(more));
    return a.toArray(String[]::new);
  }

  private static List<String> objectsUnder(String prefix) {
    return S3.client().listObjectsV2Paginator(b -> b.bucket(S3TestServer.BUCKET).prefix(prefix)).contents().stream()
        .map(S3Object::key).toList();
  }

  @Test
  void putGetListDeleteAndSyncWorkOnAnS3Store() {
    String s3 = S3.freshUri();
    Run put = run("hello\n", args("put", s3, "--namespace", "n", "--collection", "c", "--id", "r", "--body-file", "-"));
    assertThat(put.code()).as(put.err()).isZero();
    assertThat(put.out()).startsWith("committed: n/c/r\nrevision: {\"counter\":1,");
    Run get = run(null, args("get", s3, "--namespace", "n", "--collection", "c", "--id", "r"));
    assertThat(get.code()).as(get.err()).isZero();
    assertThat(get.out()).contains("\"text\" : \"hello\\n\"");
    assertThat(run(null, args("list", s3)).out()).startsWith("n/c/r\tdocument\t1\t");
    assertThat(run(null, args("delete", s3, "--namespace", "n", "--collection", "c", "--id", "r")).out())
        .isEqualTo("deleted: n/c/r\n");
    assertThat(run(null, args("list", s3)).out()).isEmpty();
    assertThat(run(null, args("list", s3, "--raw")).out()).startsWith("n/c/r\ttombstone\t2\t");
    // the tombstone travels to a file: store and back to another S3 store; nothing resurrects
    String fs = "file:" + dir.resolve("fs");
    Run sync = run(null, "store", "sync", "--store", fs, "--peer", s3);
    assertThat(sync.code()).as(sync.err()).isZero();
    assertThat(sync.out()).startsWith("copied: 1\n");
    assertThat(run(null, args("get", fs, "--namespace", "n", "--collection", "c", "--id", "r", "--raw")).out())
        .contains("\"kind\" : \"tombstone\"");
    String other = S3.freshUri();
    assertThat(run(null, "store", "sync", "--store", other, "--peer", fs).out()).startsWith("copied: 1\n");
    assertThat(run(null, args("list", other)).out()).isEmpty();
    assertThat(run(null, args("list", other, "--raw")).out()).startsWith("n/c/r\ttombstone\t2\t");
    assertThat(run(null, "store", "sync", "--store", s3, "--peer", other).out()).startsWith("copied: 0\n");
  }

  @Test
  void qualifyS3PrintsOneLinePerPropertyAndAVerdictItsExitCodeFollows() {
    String s3 = S3.freshUri();
    Run r = run(null, "store", "qualify-s3", "--store", s3, "--rounds", "3");
    System.out.println("lethe store qualify-s3 on S3Mock (exit " + r.code() + "):\n" + r.out() + r.err());
    List<String> lines = r.out().lines().toList();
    assertThat(lines).hasSize(5);
    assertThat(lines.get(0)).startsWith("create-if-absent: ").contains("(32 racers x 3 rounds: ");
    assertThat(lines.get(1)).startsWith("update-if-match: ");
    assertThat(lines.get(2)).startsWith("delete-if-match-vs-create: ");
    assertThat(lines.get(3)).isEqualTo("if-match-on-missing-key: ok (refused, nothing written)");
    assertThat(r.code()).isEqualTo(lines.get(4).equals("verdict: qualified") ? 0 : 1);
    for (String[] bad : List.of(new String[] {"--store", "file:."}, new String[] {"--store", s3, "--racers", "1"},
        new String[] {"--store", s3, "--rounds", "x"})) {
      List<String> a = new ArrayList<>(List.of("store", "qualify-s3"));
      a.addAll(List.of(bad));
      Run u = run(null, a.toArray(String[]::new));
      assertThat(u.code()).as(u.err()).isEqualTo(2);
      assertThat(u.err().lines()).hasSize(1);
      assertThat(u.err()).startsWith("lethe store qualify-s3: ");
    }
  }

  @Test
  void aMalformedS3UriIsAUsageErrorOfOneLine() {
    for (String bad : List.of("s3:bucket/p", "s3://", "s3://Bad_Bucket/p", "s3://bucket//p",
        "s3://bucket/p?endpoint=ftp://x", "s3://bucket/p?secret=" + SECRET, "s3://bucket/p?path-style=maybe")) {
      Run r = run("x", args("put", bad, "--namespace", "n", "--collection", "c", "--id", "r", "--body-file", "-"));
      assertThat(r.code()).as(bad + ": " + r.err()).isEqualTo(2);
      assertThat(r.err().lines()).as(bad).hasSize(1);
      assertThat(r.err()).as(bad).startsWith("lethe store put: --store: Invalid ").doesNotContain("Exception");
    }
    Run r = run(null, args("list", "s3://bucket/p?endpoint=http://127.0.0.1:9/&color=blue"));
    assertThat(r.err()).isEqualTo("lethe store list: --store: Invalid S3 store URI"
        + " 's3://bucket/p?endpoint=http://127.0.0.1:9/&color=blue': unknown parameter 'color' (known: endpoint,"
        + " region, path-style; credentials come from lethe.store.s3.* or the AWS environment)\n");
  }

  @Test
  void aMissingBucketAnUnreachableEndpointOrMissingCredentialsIsAnErrorOfOneLineAndWritesNothing() {
    String prefix = "t-" + UUID.randomUUID();
    String missingBucket = "s3://no-such-bucket-" + UUID.randomUUID().toString().substring(0, 8) + "/" + prefix
        + "?endpoint=" + S3.endpoint();
    String unreachable = "s3://" + S3TestServer.BUCKET + "/" + prefix + "?endpoint=http://127.0.0.1:1";
    String fine = S3TestServer.uri(S3.endpoint(), prefix);
    record Case(String uri, Map<String, String> env, String cause) {}
    for (Case c : List.of(
        new Case(missingBucket, CREDENTIALS, ": the bucket does not exist"),
        new Case(unreachable, CREDENTIALS, "Connection refused"),
        new Case(fine, Map.of(), ": no credentials found (set lethe.store.s3.access-key-id and"
            + " lethe.store.s3.secret-access-key, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or an AWS profile)"))) {
      Run r = runWith(c.env(), "x", args("put", c.uri(), "--namespace", "n", "--collection", "c", "--id", "r",
          "--body-file", "-"));
      assertThat(r.code()).as(c.uri() + ": " + r.err()).isEqualTo(1);
      assertThat(r.err().lines()).as(r.err()).hasSize(1);
      assertThat(r.err()).startsWith("lethe store put: error: Cannot open store s3://").contains(c.cause())
          .doesNotContain(SECRET);
    }
    assertThat(objectsUnder(prefix)).isEmpty();
  }
}
