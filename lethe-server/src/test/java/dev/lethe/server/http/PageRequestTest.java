package dev.lethe.server.http;


import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class PageRequestTest {
  private static final dev.lethe.server.http.PageTokenKey KEY = dev.lethe.server.http.PageTokenKey.of(new byte[32]);
  private static final ListingCursor TABLES = ListingCursor.of(KEY, ListingCursor.Listing.TABLES, "main", "db");

  @Test
  void noParametersMeansTheUnpaginatedList() {
    assertThat(PageRequest.parse(null, null, TABLES)).isEmpty();
    assertThat(PageRequest.parse(null, "", TABLES)).isEmpty();
  }

  @Test
  void tokenAloneOrEmptyTokenGetsTheDefaultSize() {
    assertThat(PageRequest.parse("", null, TABLES)).contains(new PageRequest(Optional.empty(), 1000));
    assertThat(PageRequest.parse(TABLES.token("t4"), null, TABLES)).contains(new PageRequest(Optional.of("t4"), 1000));
    assertThat(PageRequest.parse(null, "2", TABLES)).contains(new PageRequest(Optional.empty(), 2));
  }

  @Test
  void offsetsGarbageAndOtherListingsTokensAreRejectedNamingTheParameter() {
    String views = ListingCursor.of(KEY, ListingCursor.Listing.VIEWS, "main", "db").token("t4");
    String otherNamespace = ListingCursor.of(KEY, ListingCursor.Listing.TABLES, "main", "db2").token("t4");
    for (String bad : new String[] {"-5", "0", "4", "garbage", " 1", "99999999999", views, otherNamespace,
        TABLES.token("t4") + "=", "." + TABLES.token("t4")}) {
      assertThatThrownBy(() -> PageRequest.parse(bad, "2", TABLES))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Invalid pageToken");
    }
  }

  @Test
  void badSizesAreRejectedNamingTheParameter() {
    assertThatThrownBy(() -> PageRequest.parse(null, "-1", TABLES)).hasMessageContaining("Invalid pageSize: must be at least 1");
    assertThatThrownBy(() -> PageRequest.parse(null, "0", TABLES)).hasMessageContaining("Invalid pageSize: must be at least 1");
    assertThatThrownBy(() -> PageRequest.parse(null, "abc", TABLES)).hasMessageContaining("Invalid pageSize: not a number");
  }

  @Test
  void hugeSizesAreCappedAtAnInt() {
    assertThat(PageRequest.parse("", "99999999999", TABLES).orElseThrow().size()).isEqualTo(Integer.MAX_VALUE);
    assertThat(PageRequest.parse("", String.valueOf(Integer.MAX_VALUE), TABLES).orElseThrow().size())
        .isEqualTo(Integer.MAX_VALUE);
  }
}
