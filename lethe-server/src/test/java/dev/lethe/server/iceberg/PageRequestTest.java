package dev.lethe.server.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PageRequestTest {
  @Test
  void noParametersMeansTheUnpaginatedList() {
    assertThat(PageRequest.parse(null, null)).isEmpty();
    assertThat(PageRequest.parse(null, "")).isEmpty();
  }

  @Test
  void tokenAloneOrEmptyTokenGetsTheDefaultSize() {
    assertThat(PageRequest.parse("", null)).contains(new PageRequest("0", "1000"));
    assertThat(PageRequest.parse("4", null)).contains(new PageRequest("4", "1000"));
    assertThat(PageRequest.parse(null, "2")).contains(new PageRequest("0", "2"));
  }

  @Test
  void garbageOrNegativeTokensAreRejectedNamingTheParameter() {
    for (String bad : new String[] {"-5", "garbage", " 1", "1 ", "+1", "99999999999", "2147483648"}) {
      assertThatThrownBy(() -> PageRequest.parse(bad, "2"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Invalid pageToken");
    }
  }

  @Test
  void badSizesAreRejectedNamingTheParameter() {
    assertThatThrownBy(() -> PageRequest.parse(null, "-1")).hasMessageContaining("Invalid pageSize: must be at least 1");
    assertThatThrownBy(() -> PageRequest.parse(null, "0")).hasMessageContaining("Invalid pageSize: must be at least 1");
    assertThatThrownBy(() -> PageRequest.parse(null, "abc")).hasMessageContaining("Invalid pageSize: not a number");
  }

  @Test
  void hugeSizesAreCappedSoOffsetPlusSizeFitsAnInt() {
    PageRequest page = PageRequest.parse("3", "99999999999").orElseThrow();
    assertThat(page.pageToken()).isEqualTo("3");
    assertThat(3L + Long.parseLong(page.pageSize())).isLessThanOrEqualTo(Integer.MAX_VALUE);
    assertThat(PageRequest.parse("3", String.valueOf(Integer.MAX_VALUE)).orElseThrow().pageSize())
        .isEqualTo(String.valueOf(Integer.MAX_VALUE - 3));
  }
}
