package dev.lethe.cli.store;

import dev.lethe.store.s3.S3Settings;
import dev.lethe.store.soak.Backend;
import dev.lethe.store.soak.S3Target;
import dev.lethe.store.soak.Soak;
import dev.lethe.store.soak.SoakOptions;
import dev.lethe.store.soak.Transport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * {@code lethe store soak}: the HA soak (docs/design/0145-ha-soak.md; guide docs/store.md "Soak").
 * The soak itself lives in lethe-store-soak; this command parses options, starts replicas from the
 * running JVM's class path, and maps the verdict to an exit code.
 */
@Command(name = "soak", mixinStandardHelpOptions = true,
    description = {"Run the HA soak: server replicas, seeded writers, kill -9 chaos, an oracle.",
        "Talks only to 127.0.0.1; stops by itself and prints one count per violation row."},
    footerHeading = "%nExit codes:%n", footer = {"  0  every row is 0", "  1  a violation, or an error", "  2  usage"})
final class SoakCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(names = "--seed", paramLabel = "N", defaultValue = "1", description = "Seed of the writers and the chaos loop (default: ${DEFAULT-VALUE}).")
  String seed;
  @Option(names = "--duration", paramLabel = "DURATION", defaultValue = "60s",
      description = "How long the writers write: a positive integer and one unit of h, m, s (default: ${DEFAULT-VALUE}).")
  String duration;
  @Option(names = "--replicas", paramLabel = "R", defaultValue = "3", description = "lethe server replicas, 1 to 9 (default: ${DEFAULT-VALUE}).")
  String replicas;
  @Option(names = "--writers", paramLabel = "W", defaultValue = "8", description = "Writer clients, 1 to 64 (default: ${DEFAULT-VALUE}).")
  String writers;
  @Option(names = "--backend", paramLabel = "NAME", defaultValue = "file",
      description = "The replicas' shared store: file (a temporary directory), postgresql (--jdbc-url) or s3 (--s3-endpoint) (default: ${DEFAULT-VALUE}).")
  String backend;
  @Option(names = "--jdbc-url", paramLabel = "URL", description = "The PostgreSQL store of --backend postgresql: jdbc:postgresql://127.0.0.1….")
  String jdbcUrl;
  @Option(names = "--s3-endpoint", paramLabel = "URL",
      description = "The test S3 server of --backend s3: http://127.0.0.1:PORT. Credentials: lethe.store.s3.* (system properties or LETHE_STORE_S3_* variables).")
  String s3Endpoint;
  @Option(names = "--s3-bucket", paramLabel = "NAME", defaultValue = "lethe-soak",
      description = "The existing bucket of --backend s3; each run writes its own prefix soak-<seed>-<ms> (default: ${DEFAULT-VALUE}).")
  String s3Bucket;
  @Option(names = "--kill-every", paramLabel = "DURATION", defaultValue = "3s",
      description = "Pause between two replica kills, from when a serving replica may be killed; 0 turns chaos off (default: ${DEFAULT-VALUE}).")
  String killEvery;
  @Option(names = "--keep-serving", paramLabel = "N",
      description = "Replicas the chaos keeps serving, 0 to R-1 (default: 1, or 0 with one replica).")
  String keepServing;
  @Option(names = "--transports", paramLabel = "LIST", defaultValue = "http,grpc",
      description = "How clients reach replicas, comma-separated (default: ${DEFAULT-VALUE}).")
  String transports;
  @Option(names = "--work-dir", paramLabel = "DIR", description = "Where replicas keep data and logs (default: a new temporary directory, kept).")
  Path workDir;

  @Unmatched List<String> unmatched = new ArrayList<>();

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    SoakOptions options;
    try {
      if (!unmatched.isEmpty()) {
        String first = unmatched.get(0);
        throw new UsageException((first.startsWith("-") ? "unknown option '" : "unexpected argument '")
            + first + "' (see 'lethe store soak --help')");
      }
      options = options();
    } catch (UsageException | IllegalArgumentException e) {
      err.println("lethe store soak: " + e.getMessage());
      err.flush();
      return ExitCode.USAGE;
    }
    try {
      out.println("soak: work directory " + options.workDir());
      out.flush();
      Soak.Result result = Soak.run(options);
      Soak.print(result, options, out);
      return result.passed() ? ExitCode.OK : ExitCode.ERROR;
    } catch (IOException | RuntimeException e) {
      err.println("lethe store soak: error: " + e);
      return ExitCode.ERROR;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println("lethe store soak: interrupted");
      return ExitCode.ERROR;
    } finally {
      out.flush();
      err.flush();
    }
  }

  private SoakOptions options() {
    long s = parseLong("--seed", seed);
    Duration d = Horizon.parse("--duration", duration).duration();
    Duration kill = "0".equals(killEvery) ? Duration.ZERO : Horizon.parse("--kill-every", killEvery).duration();
    Path dir = workDir;
    if (dir == null) {
      try {
        dir = Files.createTempDirectory("lethe-soak-");
      } catch (IOException e) {
        throw new UsageException("cannot create a temporary work directory: " + e.getMessage());
      }
    }
    Backend b = Backend.parse(backend);
    S3Target s3 = null;
    if (b == Backend.S3 || s3Endpoint != null) {
      // the replicas get the credentials as environment variables, never printed (docs/store.md "Soak")
      s3 = new S3Target(S3Target.endpoint(s3Endpoint), s3Bucket, S3Settings.fromProcess(System.getenv(), System.getProperties()));
    }
    Integer keep = keepServing == null ? null : (int) parseLong("--keep-serving", keepServing);
    return new SoakOptions(s, d, (int) parseLong("--replicas", replicas), (int) parseLong("--writers", writers),
        b, jdbcUrl, s3, kill, keep, Transport.parseList(transports), dir, serverCommand(),
        uri -> StoreUri.open("--store", uri, 32, Clock.systemUTC(), Optional.empty()), null);
  }

  /** This JVM, running the launcher's main class from the class path it runs with. */
  static List<String> serverCommand() {
    return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx384m",
        "-cp", System.getProperty("java.class.path"), "dev.lethe.cli.LetheCommand");
  }

  private static long parseLong(String option, String text) {
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw new UsageException(option + " must be an integer, got '" + text + "'");
    }
  }
}
