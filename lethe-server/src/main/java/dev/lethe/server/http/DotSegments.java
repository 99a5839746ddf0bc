package dev.lethe.server.http;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The server does not resolve dot segments ({@code .}, {@code ..}, also %-encoded): the routes
 * under {@code /api/metalakes/} and {@code /store/} refuse them with 400 before any route runs.
 * This is the one test both use; each names the path in its own message.
 */
public final class DotSegments {
  private DotSegments() {}

  /**
   * The first {@code .} or {@code ..} segment of {@code rawPath}, each segment %-decoded (one that
   * does not decode is skipped: the route's own parsing answers it) and, with {@code levels}, split
   * further at U+001F (Iceberg's namespace level separator); empty if there is none.
   */
  public static Optional<String> relative(String rawPath, boolean levels) {
    for (String raw : rawPath.split("/", -1)) {
      String segment;
      try {
        segment = URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
      } catch (IllegalArgumentException malformed) {
        continue;
      }
      for (String level : levels ? segment.split("\u001f", -1) : new String[] {segment}) {
        if (level.equals(".") || level.equals("..")) {
          return Optional.of(level);
        }
      }
    }
    return Optional.empty();
  }

  /** Whether {@code rawPath} has an empty segment between two slashes ({@code /a//b}; a trailing slash is not one). */
  public static boolean hasEmptyInnerSegment(String rawPath) {
    String[] segments = rawPath.split("/", -1);
    for (int i = 1; i < segments.length - 1; i++) {
      if (segments[i].isEmpty()) {
        return true;
      }
    }
    return false;
  }
}
