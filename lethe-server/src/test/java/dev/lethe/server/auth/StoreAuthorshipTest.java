package dev.lethe.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Authorship cannot be forged: every caller kind × claim / no claim, for consumer writes and raw puts. */
class StoreAuthorshipTest {
  private static final Optional<Principal> WRITER =
      Optional.of(new Principal("writer", Set.of(), Set.of(), Set.of("team"), Set.of("team")));
  private static final Optional<Principal> ADMIN =
      Optional.of(new Principal("root", Set.of("*"), Set.of("*")));
  private static final Optional<Principal> AUTH_OFF = Optional.empty();

  @Test
  void aNonAdminIsStampedAsItselfWhateverItClaims() {
    assertThat(StoreAuthorship.consumerAuthor(WRITER, Optional.of("alice"))).contains("writer");
    assertThat(StoreAuthorship.consumerAuthor(WRITER, Optional.empty())).contains("writer");
    assertThat(StoreAuthorship.rawAuthor(WRITER, Optional.of("alice"))).contains("writer");
    assertThat(StoreAuthorship.rawAuthor(WRITER, Optional.empty())).contains("writer");
  }

  @Test
  void anAdminKeepsItsClaimOrIsStampedAsItselfOnConsumerWrites() {
    assertThat(StoreAuthorship.consumerAuthor(ADMIN, Optional.of("alice"))).contains("alice");
    assertThat(StoreAuthorship.consumerAuthor(ADMIN, Optional.empty())).contains("root");
  }

  @Test
  void anAdminRawPutKeepsTheReplicatedAuthorEvenNone() {
    assertThat(StoreAuthorship.rawAuthor(ADMIN, Optional.of("alice"))).contains("alice");
    assertThat(StoreAuthorship.rawAuthor(ADMIN, Optional.empty())).isEmpty();
  }

  @Test
  void withAuthOffTheClaimIsKeptAndNoClaimStaysNone() {
    assertThat(StoreAuthorship.consumerAuthor(AUTH_OFF, Optional.of("alice"))).contains("alice");
    assertThat(StoreAuthorship.consumerAuthor(AUTH_OFF, Optional.empty())).isEmpty();
    assertThat(StoreAuthorship.rawAuthor(AUTH_OFF, Optional.of("alice"))).contains("alice");
    assertThat(StoreAuthorship.rawAuthor(AUTH_OFF, Optional.empty())).isEmpty();
  }
}
