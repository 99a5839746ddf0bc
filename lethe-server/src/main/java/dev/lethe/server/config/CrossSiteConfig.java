package dev.lethe.server.config;

import dev.lethe.server.http.CrossSiteRequests;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/** {@link ConfigKeys#ALLOWED_ORIGINS} (docs/design/0421-no-cross-site-writes.md). */
public final class CrossSiteConfig {
  private static final Pattern ORIGIN = Pattern.compile("https?://[^/?#@\\s]+");

  private CrossSiteConfig() {}

  /**
   * The origins whose browser pages may call the server: comma-separated {@code scheme://host[:port]}
   * entries, compared case-insensitively; default none.
   *
   * @return normalized origins ({@link CrossSiteRequests#normalize}); empty when unset or empty
   * @throws ConfigException naming the key and the entry when an entry is not an http(s) origin
   */
  public static Set<String> allowedOrigins(Map<String, String> values) {
    String v = values.get(ConfigKeys.ALLOWED_ORIGINS);
    Set<String> origins = new LinkedHashSet<>();
    if (v == null) {
      return Set.of();
    }
    for (String entry : v.split(",", -1)) {
      String origin = CrossSiteRequests.normalize(entry);
      if (origin.isEmpty() && v.isBlank()) {
        continue;
      }
      if (!ORIGIN.matcher(origin).matches()) {
        throw new ConfigException("Invalid " + ConfigKeys.ALLOWED_ORIGINS + ": '" + entry.trim()
            + "' is not an origin (scheme://host[:port], http or https, no path)");
      }
      origins.add(origin);
    }
    return Set.copyOf(origins);
  }
}
