package dev.lethe.server.http;


import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ListingCursorTest {
  private static final dev.lethe.server.http.PageTokenKey KEY = dev.lethe.server.http.PageTokenKey.of(new byte[32]);
  private static final ListingCursor NAMESPACES = ListingCursor.of(KEY, ListingCursor.Listing.NAMESPACES, "main", "a\u001fb");

  @Test
  void aTokenCarriesItsKeyBackExactlyAndIsUrlSafe() {
    for (String key : new String[] {"t", "t ", "ü€😀", "a\"b\\c\n", "x".repeat(255)}) {
      String token = NAMESPACES.token(key);
      assertThat(token).matches("[A-Za-z0-9_.-]+");
      assertThat(NAMESPACES.after(token)).isEqualTo(key);
    }
  }

  @Test
  void everyOtherListingScopeOrVersionIsRefused() {
    String token = NAMESPACES.token("c");
    for (ListingCursor other : new ListingCursor[] {
        ListingCursor.of(KEY, ListingCursor.Listing.TABLES, "main", "a\u001fb"),
        ListingCursor.of(KEY, ListingCursor.Listing.NAMESPACES, "other", "a\u001fb"),
        ListingCursor.of(KEY, ListingCursor.Listing.NAMESPACES, "main", "a"),
        ListingCursor.of(KEY, ListingCursor.Listing.NAMESPACES, "main", "a\u001fb", "")}) {
      assertThatThrownBy(() -> other.after(token)).hasMessageContaining("Invalid pageToken");
    }
    // a well-formed body signed with the server key but version 2 is still not this server's token
    String v2 = signed(KEY, "{\"v\":2,\"listing\":\"NAMESPACES\",\"scope\":[\"main\",\"a\\u001fb\"],\"after\":\"c\"}");
    assertThatThrownBy(() -> NAMESPACES.after(v2)).hasMessageContaining("Invalid pageToken");
  }

  @Test
  void anyEditedCharacterIsRefused() {
    long seed = Long.getLong("lethe.test.cursor.seed", System.nanoTime());
    System.out.println("ListingCursorTest seed " + seed + " (-Dlethe.test.cursor.seed=" + seed + ")");
    Random random = new Random(seed);
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.";
    for (int i = 0; i < 2000; i++) {
      String token = NAMESPACES.token("k" + random.nextInt(1000));
      char[] c = token.toCharArray();
      int at = random.nextInt(c.length);
      char was = c[at];
      do {
        c[at] = alphabet.charAt(random.nextInt(alphabet.length()));
      } while (c[at] == was);
      String edited = new String(c);
      try {
        String key = NAMESPACES.after(edited);
        // the last base64 character may carry unused bits: a change there can decode to the same bytes
        assertThat(key).as("seed " + seed + " token " + edited).isEqualTo(NAMESPACES.after(token));
      } catch (IllegalArgumentException e) {
        assertThat(e).hasMessageContaining("Invalid pageToken");
      }
    }
  }

  @Test
  void aTokenWithTheOldUnkeyedCheckOrAnotherKeysSignatureIsRefused() {
    String json = "{\"v\":1,\"listing\":\"NAMESPACES\",\"scope\":[\"main\",\"a\\u001fb\"],\"after\":\"c\"}";
    assertThat(NAMESPACES.after(signed(KEY, json))).isEqualTo("c");
    assertThatThrownBy(() -> NAMESPACES.after(unkeyed(json))).hasMessageContaining("Invalid pageToken");
    byte[] other = new byte[32];
    other[0] = 1;
    assertThatThrownBy(() -> NAMESPACES.after(signed(dev.lethe.server.http.PageTokenKey.of(other), json)))
        .hasMessageContaining("Invalid pageToken");
  }

  /** A token built as the server builds it, around any JSON body: only the body's content is refused. */
  private static String signed(dev.lethe.server.http.PageTokenKey key, String json) {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    return b64.encodeToString(body) + "." + b64.encodeToString(key.sign("lethe-catalog-page", body));
  }

  /** A token with the check of design 0403 before it was signed: 9 bytes of SHA-256 over a tag and the body. */
  static String unkeyed(String json) {
    try {
      java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
      sha.update("lethe-catalog-page\n".getBytes(StandardCharsets.UTF_8));
      byte[] check = java.util.Arrays.copyOf(sha.digest(json.getBytes(StandardCharsets.UTF_8)), 9);
      Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
      return b64.encodeToString(json.getBytes(StandardCharsets.UTF_8)) + "." + b64.encodeToString(check);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
