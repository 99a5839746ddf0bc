package dev.lethe.cli.store;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A duration as typed on the command line: one positive integer and one unit of {@code d}, {@code
 * h}, {@code m} or {@code s} (e.g. {@code 7d}). {@code 0}, {@code 1d12h}, {@code 5w}, {@code d},
 * {@code -1d} and values whose milliseconds overflow a long are rejected.
 *
 * @param typed the text as typed
 * @param duration the parsed duration
 */
record Horizon(String typed, Duration duration) {

  private static final Pattern FORMAT = Pattern.compile("([0-9]+)([dhms])");

  /**
   * Parses {@code text}.
   *
   * @param option the option name for the error message
   * @throws UsageException naming the option and the expected form
   */
  static Horizon parse(String option, String text) {
    String expected = option + " takes a positive integer and one unit of d, h, m or s (e.g. 7d), got '"
        + text + "'";
    Matcher m = FORMAT.matcher(text == null ? "" : text);
    if (!m.matches()) {
      throw new UsageException(expected);
    }
    long n;
    try {
      n = Long.parseLong(m.group(1));
    } catch (NumberFormatException e) {
      throw new UsageException(option + " value '" + text + "' is too large");
    }
    if (n <= 0) {
      throw new UsageException(expected);
    }
    long unitSeconds = switch (m.group(2)) {
      case "d" -> 86_400L;
      case "h" -> 3_600L;
      case "m" -> 60L;
      default -> 1L;
    };
    try {
      long seconds = Math.multiplyExact(n, unitSeconds);
      Math.multiplyExact(seconds, 1000L);
      return new Horizon(text, Duration.ofSeconds(seconds));
    } catch (ArithmeticException e) {
      throw new UsageException(option + " value '" + text + "' is too large");
    }
  }

  /** Returns e.g. {@code 7d (604800 s)}. */
  String describe() {
    return typed + " (" + duration.toSeconds() + " s)";
  }
}
