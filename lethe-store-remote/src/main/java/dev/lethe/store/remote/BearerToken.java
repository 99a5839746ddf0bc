package dev.lethe.store.remote;

/**
 * The shape of a bearer token a Lethe client may send (docs/design/0414-a-bad-token-is-refused-unprinted.md):
 * one or more visible ASCII characters (U+0021 to U+007E), no space or control character, which
 * is what the server accepts (docs/auth.md). A token outside that shape can never authenticate,
 * and the JDK's HTTP client would refuse the header with a message quoting the whole value, so
 * it is refused here, before any request, with a message that never contains it.
 */
public final class BearerToken {
  private BearerToken() {}

  /**
   * Refuses a token that is not visible ASCII.
   *
   * @param token the token (not null)
   * @param source where it came from, for the message, e.g. {@code "--token"} or {@code "LETHE_TOKEN"}
   * @throws IllegalArgumentException naming the source and the position of the first bad
   *     character, never the token
   */
  public static void check(String token, String source) {
    for (int i = 0; i < token.length(); i++) {
      char c = token.charAt(i);
      if (c < 0x21 || c > 0x7e) {
        throw new IllegalArgumentException("Invalid bearer token from " + source + ": character " + (i + 1) + " of "
            + token.length() + " is " + (c == ' ' ? "a space" : c < 0x20 || c == 0x7f ? "a control character"
            : "not ASCII") + "; a token is visible ASCII without spaces (the token is not shown)");
      }
    }
  }
}
