package dev.lethe.cli.store;

import dev.lethe.store.s3.S3Location;
import dev.lethe.store.s3.S3Qualify;
import dev.lethe.store.s3.S3Settings;
import dev.lethe.store.s3.qualify.Property;
import dev.lethe.store.s3.qualify.Qualification;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code lethe store qualify-s3}: whether an S3 server keeps the promises of several writers. */
@Command(name = "qualify-s3", mixinStandardHelpOptions = true,
    description = {"Probe an S3 server's conditional writes for several writers.",
        "Checks whether the server of --store s3://bucket/prefix keeps the promises",
        "several writers of one store need. Prints one line per property and a",
        "verdict, records the verdict under the prefix (lethe server logs it) and",
        "removes the probe's other keys."},
    footerHeading = "%nExit codes:%n",
    footer = {"  0  qualified: every property held", "  1  error, or not qualified", "  2  usage"})
final class QualifyS3Command extends StoreSubcommand {

  @Option(names = "--racers", paramLabel = "N", defaultValue = "" + Qualification.DEFAULT_RACERS,
      description = "Concurrent writers per round, 2 to 1000 (default: ${DEFAULT-VALUE}).")
  String racers;

  @Option(names = "--rounds", paramLabel = "R", defaultValue = "" + Qualification.DEFAULT_ROUNDS,
      description = "Rounds per property, 1 to 10000 (default: ${DEFAULT-VALUE}).")
  String rounds;

  @Override
  int execute(PrintWriter out, PrintWriter err) {
    if (!S3Location.supports(storeUri)) {
      throw new UsageException("--store '" + storeUri + "': qualify-s3 needs an s3://bucket/prefix store");
    }
    int n = number("--racers", racers);
    int r = number("--rounds", rounds);
    java.util.Map<String, String> settings = S3Settings.fromProcess(environment, System.getProperties());
    try {
      Qualification.checkCounts(n, r);
      S3Settings.resolve(S3Location.parse(storeUri), settings, environment);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    S3Qualify.Report report = S3Qualify.run(storeUri, settings, environment, n, r, clock);
    for (Property p : report.properties()) {
      out.println(p.line());
    }
    out.println(report.verdictLine());
    return report.qualified() ? ExitCode.OK : ExitCode.ERROR;
  }

  private static int number(String option, String value) {
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new UsageException(option + " must be an integer, got '" + value + "'");
    }
  }
}
