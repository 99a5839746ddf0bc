package dev.lethe.server.http;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.Base64;
import java.util.List;

/**
 * The opaque {@code pageToken} of a catalog listing (docs/design/0403-keyset-catalog-listings.md):
 * the last key of a page (a keyset cursor), bound to the listing it was issued for.
 *
 * <p>A token is {@code base64url(json) "." base64url(signature)}, where {@code json} is {@code
 * {"v":1,"listing":…,"scope":[…],"after":…}} and {@code signature} the server key's HMAC of a
 * fixed tag and {@code json} (docs/design/0423-signed-page-tokens.md). An edited, truncated, made-up
 * or differently signed token is one this server never issued; so is a token of another listing,
 * another scope (catalog, namespace, parent, filters) or another format version: each is answered
 * 400 naming {@code pageToken}.
 *
 * @param key the server key tokens are signed and checked with
 * @param listing the listing
 * @param scope what the listing is over, e.g. catalog and namespace; never null, elements never null
 */
public record ListingCursor(PageTokenKey key, Listing listing, List<String> scope) {
  /** The catalog listings that page by key. */
  public enum Listing {
    NAMESPACES, TABLES, VIEWS, DELETED_TABLES, CLEANUP_JOBS
  }

  private static final int VERSION = 1;
  private static final String TAG = "lethe-catalog-page";
  private static final ObjectMapper JSON = JsonMapper.builder()
      .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, DeserializationFeature.FAIL_ON_TRAILING_TOKENS,
          DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
      .build();

  record Body(@JsonProperty("v") int v, @JsonProperty("listing") Listing listing,
      @JsonProperty("scope") List<String> scope, @JsonProperty("after") String after) {}

  public ListingCursor {
    scope = List.copyOf(scope);
  }

  /** A cursor of {@code listing} over {@code scope}, its tokens signed with {@code key}. */
  public static ListingCursor of(PageTokenKey key, Listing listing, String... scope) {
    return new ListingCursor(key, listing, List.of(scope));
  }

  /**
   * The token of the page that follows {@code after}.
   *
   * @param after the last key of the page just served, never empty
   */
  public String token(String after) {
    byte[] json;
    try {
      json = JSON.writeValueAsBytes(new Body(VERSION, listing, scope, after));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write a page token", e);
    }
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    return b64.encodeToString(json) + "." + b64.encodeToString(key.sign(TAG, json));
  }

  /**
   * The key a token issued by {@link #token} for this very listing and scope carries.
   *
   * @throws IllegalArgumentException (HTTP 400) naming {@code pageToken} for any other string
   */
  public String after(String token) {
    int dot = token.indexOf('.');
    if (dot < 0 || token.indexOf('.', dot + 1) >= 0) {
      throw notIssued();
    }
    byte[] json;
    byte[] check;
    try {
      json = Base64.getUrlDecoder().decode(token.substring(0, dot));
      check = Base64.getUrlDecoder().decode(token.substring(dot + 1));
    } catch (IllegalArgumentException e) {
      throw notIssued();
    }
    if (!key.verifies(TAG, json, check)) {
      throw notIssued();
    }
    Body body;
    try {
      body = JSON.readValue(json, Body.class);
    } catch (java.io.IOException e) {
      throw notIssued();
    }
    if (body.v() != VERSION || body.listing() != listing || !scope.equals(body.scope()) || body.after() == null
        || body.after().isEmpty()) {
      throw notIssued();
    }
    return body.after();
  }

  private static IllegalArgumentException notIssued() {
    return new IllegalArgumentException(
        "Invalid pageToken: not a token this server issued for this listing (start again without pageToken)");
  }
}
