package dev.lethe.server.store;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The opaque {@code pageToken} of the store's listings (docs/design/0103-store-http-routes.md):
 * the last key of a page (a keyset cursor), bound to the listing and the scope it was issued for.
 * A token is base64url of {@code lethe-page-1 \n listing \n scope \n last}. It is not secret and
 * not signed: it grants nothing, since access is checked on the request's own scope; a token that
 * does not decode to a cursor of this very listing is rejected as one the server never issued.
 */
final class PageToken {
  private static final String TAG = "lethe-page-1";

  private PageToken() {}

  /**
   * @param listing which listing ({@code live}, {@code raw}, {@code blobs})
   * @param scope the listing's scope, e.g. {@code ns/*}
   * @param last the last key (or blob hash) of the page
   */
  static String encode(String listing, String scope, String last) {
    String text = TAG + "\n" + listing + "\n" + scope + "\n" + last;
    return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Returns the cursor of a token issued for {@code listing} and {@code scope}.
   *
   * @throws IllegalArgumentException for anything else
   */
  static String decode(String token, String listing, String scope) {
    String text;
    try {
      text = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw notIssued();
    }
    String[] parts = text.split("\n", -1);
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
