package dev.lethe.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AuthorizerTest {
  private static final String READER_TOKEN = "reader-s3cr3t-token";
  private static final String WRITER_TOKEN = "writer-s3cr3t-token";
  private static final String STAR_READER_TOKEN = "star-reader-s3cr3t";
  private static final String ADMIN_TOKEN = "admin-s3cr3t-token";

  private final Authorizer authorizer =
      Authorizer.of(
          new AuthFile(
              Path.of("auth.yaml"),
              List.of(
                  entry("reader", READER_TOKEN, Set.of("main"), Set.of()),
                  entry("writer", WRITER_TOKEN, Set.of(), Set.of("main")),
                  entry("star-reader", STAR_READER_TOKEN, Set.of("*"), Set.of("scratch")),
                  entry("admin", ADMIN_TOKEN, Set.of("*"), Set.of("*")))));

  private static PrincipalEntry entry(String name, String token, Set<String> read, Set<String> write) {
    return new PrincipalEntry(new Principal(name, read, write), TokenHash.sha256Hex(token));
  }

  private static String bearer(String token) {
    return "Bearer " + token;
  }

  @Test
  void readerCanReadItsCatalogButNotWriteItNorReadAnother() {
    assertThat(authorizer.authorize(bearer(READER_TOKEN), "main", Access.READ))
        .isInstanceOfSatisfying(AuthDecision.Allowed.class, a -> assertThat(a.principal().name()).isEqualTo("reader"));
    assertThat(authorizer.authorize(bearer(READER_TOKEN), "main", Access.WRITE))
        .isInstanceOfSatisfying(AuthDecision.Forbidden.class, f -> {
          assertThat(f.httpStatus()).isEqualTo(403);
          assertThat(f.reason()).isEqualTo("Principal 'reader' has no write access to catalog 'main'");
        });
    assertThat(authorizer.authorize(bearer(READER_TOKEN), "other", Access.READ))
        .isInstanceOf(AuthDecision.Forbidden.class);
  }

  @Test
  void writeAccessImpliesReadAccess() {
    assertThat(authorizer.authorize(bearer(WRITER_TOKEN), "main", Access.WRITE)).isInstanceOf(AuthDecision.Allowed.class);
    assertThat(authorizer.authorize(bearer(WRITER_TOKEN), "main", Access.READ)).isInstanceOf(AuthDecision.Allowed.class);
    assertThat(authorizer.authorize(bearer(WRITER_TOKEN), "other", Access.READ)).isInstanceOf(AuthDecision.Forbidden.class);
  }

  @Test
  void wildcardGrantsEveryCatalogForThatListOnly() {
    assertThat(authorizer.authorize(bearer(STAR_READER_TOKEN), "anything", Access.READ))
        .isInstanceOf(AuthDecision.Allowed.class);
    assertThat(authorizer.authorize(bearer(STAR_READER_TOKEN), "anything", Access.WRITE))
        .isInstanceOf(AuthDecision.Forbidden.class);
    assertThat(authorizer.authorize(bearer(STAR_READER_TOKEN), "scratch", Access.WRITE))
        .isInstanceOf(AuthDecision.Allowed.class);
  }

  @Test
  void adminHasTheWildcardInBothLists() {
    AuthDecision admin = authorizer.authorizeAdmin(bearer(ADMIN_TOKEN));
    assertThat(admin).isInstanceOf(AuthDecision.Allowed.class);
    assertThat(Authorizer.isAdmin(((AuthDecision.Allowed) admin).principal())).isTrue();
    assertThat(authorizer.authorize(bearer(ADMIN_TOKEN), "any", Access.WRITE)).isInstanceOf(AuthDecision.Allowed.class);

    assertThat(authorizer.authorizeAdmin(bearer(STAR_READER_TOKEN)))
        .isInstanceOfSatisfying(AuthDecision.Forbidden.class,
            f -> assertThat(f.reason()).isEqualTo("Principal 'star-reader' is not an admin"));
    assertThat(authorizer.authorizeAdmin(null)).isInstanceOf(AuthDecision.Unauthenticated.class);
  }

  @Test
  void missingMalformedOrUnknownTokensAreUnauthenticated() {
    for (String header : new String[] {null, "", "   ", "Basic dXNlcjpwYXNz", "Bearer", "Bearer   ",
        "Bearer two tokens", "Token " + READER_TOKEN, READER_TOKEN}) {
      assertThat(authorizer.authorize(header, "main", Access.READ))
          .as("header %s", header)
          .isInstanceOfSatisfying(AuthDecision.Unauthenticated.class, u -> assertThat(u.httpStatus()).isEqualTo(401));
    }
    assertThat(authorizer.authorize(bearer("no-such-token"), "main", Access.READ))
        .isEqualTo(new AuthDecision.Unauthenticated("Unknown bearer token"));
    assertThat(authorizer.authorize(null, "main", Access.READ))
        .isEqualTo(new AuthDecision.Unauthenticated("Missing Authorization header; expected 'Authorization: Bearer <token>'"));
  }

  @Test
  void bearerSchemeIsCaseInsensitiveAndSurroundingSpacesAreIgnored() {
    assertThat(Authorizer.bearerToken("bearer abc")).isEqualTo("abc");
    assertThat(Authorizer.bearerToken("BEARER   abc  ")).isEqualTo("abc");
    assertThat(Authorizer.bearerToken(" Bearer abc")).isEqualTo("abc");
    assertThat(Authorizer.bearerToken("Bearerabc")).isNull();
    assertThat(authorizer.authorize("bEaReR  " + READER_TOKEN + " ", "main", Access.READ))
        .isInstanceOf(AuthDecision.Allowed.class);
  }

  @Test
  void tokenDiffersFromItsHash() {
    // a client presenting the stored hash as its token must not get in
    assertThat(authorizer.authorize(bearer(TokenHash.sha256Hex(ADMIN_TOKEN)), "main", Access.READ))
        .isInstanceOf(AuthDecision.Unauthenticated.class);
  }

  @Test
  void noDecisionOrDescriptionContainsATokenOrItsHash() {
    List<String> tokens = List.of(READER_TOKEN, WRITER_TOKEN, STAR_READER_TOKEN, ADMIN_TOKEN, "no-such-token");
    StringBuilder text = new StringBuilder(authorizer.toString());
    for (String token : tokens) {
      for (Access access : Access.values()) {
        text.append(authorizer.authorize(bearer(token), "main", access)).append(authorizer.authorize(bearer(token), "x", access));
      }
      text.append(authorizer.authorizeAdmin(bearer(token)));
    }
    text.append(entry("e", ADMIN_TOKEN, Set.of(), Set.of()));
    for (String token : tokens) {
      assertThat(text.toString()).doesNotContain(token).doesNotContain(TokenHash.sha256Hex(token));
    }
  }

  @Test
  void disabledAuthorizerAllowsEveryRequestAsAnonymousAdmin() {
    Authorizer off = Authorizer.disabled();
    assertThat(off.enabled()).isFalse();
    assertThat(off.authorize(null, "main", Access.WRITE))
        .isEqualTo(new AuthDecision.Allowed(Authorizer.ANONYMOUS));
    assertThat(off.authorizeAdmin("garbage")).isInstanceOf(AuthDecision.Allowed.class);
    assertThat(Authorizer.isAdmin(Authorizer.ANONYMOUS)).isTrue();
    assertThat(authorizer.enabled()).isTrue();
  }

  @Test
  void tokenHashIsTheSha256HexOfTheUtf8Token() {
    // the value `printf %s test | sha256sum` prints
    assertThat(TokenHash.sha256Hex("test")).isEqualTo("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
    assertThat(TokenHash.isSha256Hex(TokenHash.sha256Hex("x"))).isTrue();
    assertThat(TokenHash.isSha256Hex(TokenHash.sha256Hex("x").toUpperCase())).isFalse();
    assertThat(TokenHash.isSha256Hex("abc")).isFalse();
    assertThat(TokenHash.matches(TokenHash.sha256("a"), TokenHash.sha256("a"))).isTrue();
    assertThat(TokenHash.matches(TokenHash.sha256("a"), TokenHash.sha256("b"))).isFalse();
  }
}
