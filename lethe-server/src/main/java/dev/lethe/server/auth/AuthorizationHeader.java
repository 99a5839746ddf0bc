package dev.lethe.server.auth;

import io.javalin.http.BadRequestResponse;
import io.javalin.http.Context;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The one reader of a request's {@code Authorization} header (docs/design/0410-operations.md §1).
 * Every route, and a filter in front of every route, reads it here, so a request carrying two
 * credentials is refused with 400 instead of the first one silently winning.
 *
 * <p>Two credentials are two header lines, or one line in which a comma starts a second
 * credential ({@code Bearer a, Bearer b}: what a proxy that joins repeated headers sends). A comma
 * inside one credential's parameters ({@code Digest realm="x", nonce="y"}) is not a second one.
 */
public final class AuthorizationHeader {
  /** The header's name. */
  public static final String NAME = "Authorization";

  /** Message of the 400; names no token. */
  public static final String DUPLICATE =
      "Cannot authenticate: the request carries more than one Authorization credential; send exactly one 'Authorization: Bearer <token>'";

  /** A credential starts with an auth-scheme token (RFC 9110 §11.4), whitespace, then something. */
  private static final Pattern CREDENTIAL = Pattern.compile("^\\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+\\s+\\S.*", Pattern.DOTALL);

  private AuthorizationHeader() {}

  /**
   * The request's single {@code Authorization} value.
   *
   * @return the raw value, or null when the request has none; never log it
   * @throws BadRequestResponse (400) when the request carries more than one credential
   */
  public static String of(Context ctx) {
    return single(Collections.list(ctx.req().getHeaders(NAME))).orElse(null);
  }

  /**
   * Decides the single credential of a request from all its {@code Authorization} values, in order.
   *
   * @param values every value of the header, one per header line; empty when absent
   * @return the only value, or empty when there is none
   * @throws BadRequestResponse (400, {@link #DUPLICATE}) for two or more lines, or a line holding
   *     two or more comma-separated credentials
   */
  public static Optional<String> single(List<String> values) {
    if (values.isEmpty()) {
      return Optional.empty();
    }
    if (values.size() > 1 || credentials(values.get(0)) > 1) {
      throw new BadRequestResponse(DUPLICATE);
    }
    return Optional.of(values.get(0));
  }

  /** How many credentials a single header value holds: comma-separated parts that start a credential. */
  static int credentials(String value) {
    int count = 0;
    for (String part : value.split(",", -1)) {
      if (CREDENTIAL.matcher(part).matches()) {
        count++;
      }
    }
    return count;
  }
}
