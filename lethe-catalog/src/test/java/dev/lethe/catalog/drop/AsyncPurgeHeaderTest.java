package dev.lethe.catalog.drop;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AsyncPurgeHeaderTest {
  @Test
  void trueInAnyCaseOnEitherHeaderIsAsync() {
    assertThat(AsyncPurgeHeader.decide("true", null, null)).isInstanceOf(AsyncPurgeHeader.Async.class);
    assertThat(AsyncPurgeHeader.decide("TRUE", null, null)).isInstanceOf(AsyncPurgeHeader.Async.class);
    assertThat(AsyncPurgeHeader.decide(null, "True", null)).isInstanceOf(AsyncPurgeHeader.Async.class);
    assertThat(AsyncPurgeHeader.decide(" true ", "true", null)).isInstanceOf(AsyncPurgeHeader.Async.class);
  }

  @Test
  void absentHeadersFollowTheCatalogDefaultWhichIsSynchronous() {
    assertThat(AsyncPurgeHeader.decide(null, null, null)).isInstanceOf(AsyncPurgeHeader.Sync.class);
    assertThat(AsyncPurgeHeader.decide(null, null, "false")).isInstanceOf(AsyncPurgeHeader.Sync.class);
    assertThat(AsyncPurgeHeader.decide(null, null, "true")).isInstanceOf(AsyncPurgeHeader.Async.class);
  }

  @Test
  void anExplicitFalseOverridesAnAsyncCatalogDefault() {
    assertThat(AsyncPurgeHeader.decide("false", null, "true")).isInstanceOf(AsyncPurgeHeader.Sync.class);
    assertThat(AsyncPurgeHeader.decide(null, "FALSE", "true")).isInstanceOf(AsyncPurgeHeader.Sync.class);
  }

  @Test
  void malformedOrConflictingValuesAreInvalidNamingTheHeader() {
    assertThat(AsyncPurgeHeader.decide("yes", null, null))
        .isEqualTo(new AsyncPurgeHeader.Invalid("Invalid X-Lethe-Async-Purge header: expected true or false, got 'yes'"));
    assertThat(AsyncPurgeHeader.decide(null, "", null)).isInstanceOf(AsyncPurgeHeader.Invalid.class);
    assertThat(AsyncPurgeHeader.decide("1", null, "true")).isInstanceOf(AsyncPurgeHeader.Invalid.class);
    assertThat(AsyncPurgeHeader.decide("true", "false", null)).isInstanceOf(AsyncPurgeHeader.Invalid.class);
  }
}
