package dev.lethe.server.http;


import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.server.config.ConfigException;
import dev.lethe.server.config.ConfigKeys;
import dev.lethe.server.config.CrossSiteConfig;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CrossSiteRequestsTest {
  private static final Set<String> ALLOWED = Set.of("http://ui.example:8080");

  @Test
  void anOriginOutsideTheListIsRefusedForEveryMethod() {
    for (String method : new String[] {"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS"}) {
      assertThat(CrossSiteRequests.decide(method, "/x", "http://evil.example", "POST", null, ALLOWED))
          .isInstanceOfSatisfying(CrossSiteRequests.Refuse.class, r -> assertThat(r.status()).isEqualTo(403));
      assertThat(CrossSiteRequests.decide(method, "/x", "http://evil.example", null, null, Set.of()))
          .as("none allowed by default").isInstanceOf(CrossSiteRequests.Refuse.class);
    }
  }

  @Test
  void anAllowedOriginGetsPreflightsAndIsEchoed() {
    assertThat(CrossSiteRequests.decide("OPTIONS", "/x", "HTTP://UI.example:8080/", "PUT", null, ALLOWED))
        .isEqualTo(new CrossSiteRequests.Preflight("HTTP://UI.example:8080/"));
    assertThat(CrossSiteRequests.decide("POST", "/x", "http://ui.example:8080", null, "application/json", ALLOWED))
        .isEqualTo(new CrossSiteRequests.Serve("http://ui.example:8080"));
    assertThat(CrossSiteRequests.decide("OPTIONS", "/x", null, "PUT", null, ALLOWED))
        .as("not a preflight without Origin").isEqualTo(new CrossSiteRequests.Serve(null));
  }

  @Test
  void mutationsDeclareJsonOrNothingExceptABlob() {
    for (String method : new String[] {"POST", "PUT", "DELETE", "PATCH"}) {
      assertThat(CrossSiteRequests.decide(method, "/iceberg/v1/main/namespaces", null, null, "text/plain", Set.of()))
          .isInstanceOfSatisfying(CrossSiteRequests.Refuse.class, r -> assertThat(r.status()).isEqualTo(415));
      assertThat(CrossSiteRequests.decide(method, "/x", null, null, null, Set.of())).isInstanceOf(CrossSiteRequests.Serve.class);
    }
    assertThat(CrossSiteRequests.decide("GET", "/x", null, null, "text/plain", Set.of())).isInstanceOf(CrossSiteRequests.Serve.class);
    assertThat(CrossSiteRequests.decide("PUT", "/store/v1/blobs/ab", null, null, "application/x-www-form-urlencoded", Set.of()))
        .isInstanceOf(CrossSiteRequests.Serve.class);
    assertThat(CrossSiteRequests.decide("DELETE", "/store/v1/blobs/ab", null, null, "text/plain", Set.of()))
        .isInstanceOf(CrossSiteRequests.Refuse.class);
    assertThat(CrossSiteRequests.isJson("application/json;charset=UTF-8")).isTrue();
    assertThat(CrossSiteRequests.isJson("application/problem+json")).isTrue();
    assertThat(CrossSiteRequests.isJson("text/json")).isFalse();
    assertThat(CrossSiteRequests.isJson("application/x+json/evil")).isFalse();
    assertThat(CrossSiteRequests.isJson("text/plain; a=application/json")).isFalse();
  }

  @Test
  void allowedOriginsParseOrNameTheBadEntry() {
    assertThat(CrossSiteConfig.allowedOrigins(Map.of())).isEmpty();
    assertThat(CrossSiteConfig.allowedOrigins(Map.of(ConfigKeys.ALLOWED_ORIGINS, ""))).isEmpty();
    assertThat(CrossSiteConfig.allowedOrigins(Map.of(ConfigKeys.ALLOWED_ORIGINS, "http://A.example:1, https://b.example/")))
        .containsExactlyInAnyOrder("http://a.example:1", "https://b.example");
    for (String bad : new String[] {"*", "a.example", "http://a.example/path", "ftp://a.example", "http://a.example,"}) {
      assertThatThrownBy(() -> CrossSiteConfig.allowedOrigins(Map.of(ConfigKeys.ALLOWED_ORIGINS, bad)))
          .as(bad).isInstanceOf(ConfigException.class).hasMessageContaining("lethe.http.allowed-origins");
    }
  }

  @Test
  void theServersOwnPageIsServedOnlyWhenItsOriginIsGiven() {
    String own = CrossSiteRequests.ownOrigin("http", "127.0.0.1:9001");
    assertThat(own).isEqualTo("http://127.0.0.1:9001");
    assertThat(CrossSiteRequests.decide("POST", "/api/x", "http://127.0.0.1:9001", null, "application/json", Set.of(), own))
        .isInstanceOf(CrossSiteRequests.Serve.class);
    // auth off: no own origin, so the same request is refused as before
    assertThat(CrossSiteRequests.decide("POST", "/api/x", "http://127.0.0.1:9001", null, "application/json", Set.of(), null))
        .isInstanceOfSatisfying(CrossSiteRequests.Refuse.class, r -> assertThat(r.status()).isEqualTo(403));
    // another port or scheme is another origin
    assertThat(CrossSiteRequests.decide("POST", "/api/x", "http://127.0.0.1:9002", null, "application/json", Set.of(), own))
        .isInstanceOf(CrossSiteRequests.Refuse.class);
    assertThat(CrossSiteRequests.decide("POST", "/api/x", "https://127.0.0.1:9001", null, "application/json", Set.of(), own))
        .isInstanceOf(CrossSiteRequests.Refuse.class);
    assertThat(CrossSiteRequests.ownOrigin("http", null)).isNull();
  }
}
