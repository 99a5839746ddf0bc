package dev.lethe.server.http;

import java.util.Locale;

/**
 * The message of a {@code 413}, on every route and whichever part of the server refused the body
 * (the Content-Length check, or Javalin's own "Content Too Large" for a chunked body): it says that
 * the body was too large and names the setting that sets the limit, so a user can forward one line
 * to the operator who can raise it (docs/design/0111-a-refused-body-names-its-limit.md).
 */
public final class BodyLimitMessage {
  /** The setting a refusal names; listed with the others as {@code ConfigKeys.MAX_REQUEST_BYTES}. */
  public static final String LIMIT_KEY = "lethe.http.max-request-bytes";

  private BodyLimitMessage() {}

  /**
   * Returns {@code text}, the refusal's own message, completed into a 413 message.
   *
   * @param text the message the refusal carried; null or empty for none
   */
  public static String of(String text) {
    String t = text == null || text.isBlank() ? "HTTP 413" : text;
    if (!t.toLowerCase(Locale.ROOT).contains("limit")) {
      t = "Request body too large: " + t;
    }
    if (!t.contains(LIMIT_KEY)) {
      t = t + " (" + LIMIT_KEY + ")";
    }
    return t;
  }
}
