package dev.lethe.server.config;

import java.util.Map;

/** The one reader of bounded whole-number config values (docs/design/0220-library-plumbing.md §Config). */
final class ConfigNumbers {
  private ConfigNumbers() {}

  /**
   * A whole number in {@code min..max}, or {@code def} when the key is absent.
   *
   * @param values the flat config map, not null
   * @param key the config key, also named in the error
   * @param def the value when the key is absent (not checked against the bounds)
   * @param min the smallest value accepted, inclusive
   * @param max the largest value accepted, inclusive
   * @return the value
   * @throws ConfigException naming the key when the value is not a number or is outside the bounds
   */
  static long number(Map<String, String> values, String key, long def, long min, long max) {
    String v = values.get(key);
    if (v == null) {
      return def;
    }
    long n;
    try {
      n = Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw new ConfigException("Invalid " + key + ": not a number: " + v);
    }
    if (n < min || n > max) {
      throw new ConfigException("Invalid " + key + ": " + n + " is outside " + min + ".." + max);
    }
    return n;
  }
}
