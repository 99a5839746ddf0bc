package dev.lethe.server.store;

import dev.lethe.server.http.PageTokenKey;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The opaque {@code pageToken} of the store's listings (docs/design/0103-store-http-routes.md):
 * the last key of a page (a keyset cursor), bound to the listing and the scope it was issued for.
 * A token is {@code base64url(text) "." base64url(signature)}, where {@code text} is {@code
 * lethe-page-1 \n listing \n scope \n last} and {@code signature} the server key's HMAC of it
 * (docs/design/0423-signed-page-tokens.md). A token that does not decode to a cursor of this very
 * listing and scope, or whose signature is not the server key's, is rejected as one the server
 * never issued.
 */
final class PageToken {
  private static final String TAG = "lethe-page-1";

  private PageToken() {}

  /**
   * @param key the server key
   * @param listing which listing ({@code live}, {@code raw}, {@code blobs})
   * @param scope the listing's scope, e.g. {@code ns/*}
   * @param last the last key (or blob hash) of the page
   */
  static String encode(PageTokenKey key, String listing, String scope, String last) {
    byte[] text = (TAG + "\n" + listing + "\n" + scope + "\n" + last).getBytes(StandardCharsets.UTF_8);
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    return b64.encodeToString(text) + "." + b64.encodeToString(key.sign(TAG, text));
  }

  /**
   * Returns the cursor of a token issued for {@code listing} and {@code scope}.
   *
   * @throws IllegalArgumentException for anything else
   */
  static String decode(PageTokenKey key, String token, String listing, String scope) {
    int dot = token.indexOf('.');
    if (dot < 0 || token.indexOf('.', dot + 1) >= 0) {
      throw notIssued();
    }
    byte[] bytes;
    byte[] signature;
    try {
      bytes = Base64.getUrlDecoder().decode(token.substring(0, dot));
      signature = Base64.getUrlDecoder().decode(token.substring(dot + 1));
    } catch (IllegalArgumentException e) {
      throw notIssued();
    }
    if (!key.verifies(TAG, bytes, signature)) {
      throw notIssued();
    }
    String[] parts = new String(bytes, StandardCharsets.UTF_8).split("\n", -1);
    if (parts.length != 4 || !parts[0].equals(TAG) || !parts[1].equals(listing) || !parts[2].equals(scope)
        || parts[3].isEmpty()) {
      throw notIssued();
    }
    return parts[3];
  }

  static IllegalArgumentException notIssued() {
    return new IllegalArgumentException(
        "Invalid pageToken: not a token this server issued for this listing (start again without pageToken)");
  }
}
