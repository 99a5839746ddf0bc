package dev.lethe.server.http;

import java.util.Locale;
import java.util.Set;

/**
 * Decides whether a request that a browser page could have sent is served
 * (docs/design/0421-no-cross-site-writes.md). Pure: the server's before handler calls {@link
 * #decide} with the request's method, path and headers and applies the verdict.
 *
 * <ul>
 *   <li>A request carrying an {@code Origin} not in {@code lethe.http.allowed-origins} is refused
 *       {@code 403}, whatever its method, unless it is the server's own origin and auth is on: the
 *       operator console's page (docs/design/0449-operator-console.md §4) is the one page of that
 *       origin, and with auth off a DNS-rebinding page would pass for it.
 *   <li>A CORS preflight ({@code OPTIONS} with {@code Origin} and {@code
 *       Access-Control-Request-Method}) from an allowed origin is answered {@code 204}.
 *   <li>A mutation ({@code POST}, {@code PUT}, {@code DELETE}, {@code PATCH}) on a JSON route that
 *       declares a content type other than {@code application/json} or {@code application/*+json}
 *       is refused {@code 415}; one that declares none is served. The one route that is not JSON is
 *       {@code PUT /store/v1/blobs/{hash}} (raw bytes).
 * </ul>
 */
public final class CrossSiteRequests {
  /** What to do with a request. */
  public sealed interface Verdict permits Serve, Preflight, Refuse {}

  /**
   * Serve it.
   *
   * @param allowedOrigin the request's {@code Origin} to echo in {@code Access-Control-Allow-Origin},
   *     or null when it carried none
   */
  public record Serve(String allowedOrigin) implements Verdict {}

  /** Answer the preflight from {@code origin} with {@code 204} and the CORS headers. */
  public record Preflight(String origin) implements Verdict {}

  /**
   * Refuse it, reading nothing.
   *
   * @param status 403 or 415
   * @param message one line naming what was refused and what to change
   */
  public record Refuse(int status, String message) implements Verdict {}

  private static final Set<String> MUTATIONS = Set.of("POST", "PUT", "DELETE", "PATCH");
  private static final String BLOBS = "/store/v1/blobs/";

  private CrossSiteRequests() {}

  /**
   * @param method the request method, upper case
   * @param path the request path
   * @param origin the {@code Origin} header, null if absent
   * @param preflightMethod the {@code Access-Control-Request-Method} header, null if absent
   * @param contentType the {@code Content-Type} header, null if absent
   * @param allowedOrigins normalized origins ({@link #normalize}) that may call the server; empty = none
   * @return the verdict; never null
   */
  public static Verdict decide(String method, String path, String origin, String preflightMethod, String contentType,
      Set<String> allowedOrigins) {
    return decide(method, path, origin, preflightMethod, contentType, allowedOrigins, null);
  }

  /**
   * As {@link #decide(String, String, String, String, String, Set)}, and a request whose {@code
   * Origin} is {@code ownOrigin} is served as if that origin were allowed.
   *
   * @param ownOrigin the server's own origin as this request addressed it ({@link #ownOrigin}), or
   *     null when its own pages may not call it (auth off)
   */
  public static Verdict decide(String method, String path, String origin, String preflightMethod, String contentType,
      Set<String> allowedOrigins, String ownOrigin) {
    boolean own = origin != null && ownOrigin != null && normalize(origin).equals(normalize(ownOrigin));
    if (origin != null && !own && !allowedOrigins.contains(normalize(origin))) {
      return new Refuse(403, "Cannot serve a request from a browser page of origin " + printable(origin)
          + ": it is not in lethe.http.allowed-origins (empty by default); nothing was read or changed");
    }
    if (origin != null && method.equals("OPTIONS") && preflightMethod != null) {
      return new Preflight(origin);
    }
    if (contentType != null && MUTATIONS.contains(method) && !(method.equals("PUT") && path.startsWith(BLOBS))
        && !isJson(contentType)) {
      return new Refuse(415, "Unsupported Content-Type " + printable(contentType) + " on " + method + " " + path
          + ": send application/json (or none); nothing was read or changed");
    }
    return new Serve(origin);
  }

  /**
   * The origin a page served by this request's server has: {@code scheme://host[:port]} from the
   * request's scheme and {@code Host} header; null without a {@code Host}.
   */
  public static String ownOrigin(String scheme, String host) {
    return host == null || host.isBlank() ? null : scheme + "://" + host;
  }

  /** Whether {@code contentType}'s media type is {@code application/json} or {@code application/*+json}. */
  static boolean isJson(String contentType) {
    int semicolon = contentType.indexOf(';');
    String media = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim().toLowerCase(Locale.ROOT);
    return media.equals("application/json") || (media.startsWith("application/") && media.endsWith("+json")
        && media.indexOf('/') == media.lastIndexOf('/'));
  }

  /** An origin as compared: lower case, no trailing slash. */
  public static String normalize(String origin) {
    String o = origin.trim().toLowerCase(Locale.ROOT);
    return o.endsWith("/") ? o.substring(0, o.length() - 1) : o;
  }

  private static String printable(String s) {
    String cut = s.length() > 100 ? s.substring(0, 100) + "…" : s;
    return "'" + cut.replaceAll("[\\p{Cntrl}]", "?") + "'";
  }
}
