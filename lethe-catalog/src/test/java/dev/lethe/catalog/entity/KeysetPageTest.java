package dev.lethe.catalog.entity;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class KeysetPageTest {
  @Test
  void theExtraRowMeansANextPageWhoseCursorIsThePagesLastKey() {
    KeysetPage<String> page = KeysetPage.cut(List.of("a", "b", "c"), 2, k -> k);
    assertThat(page.items()).containsExactly("a", "b");
    assertThat(page.next()).contains("b");
  }

  @Test
  void aFullPageWithoutTheExtraRowIsTheLastOne() {
    assertThat(KeysetPage.cut(List.of("a", "b"), 2, k -> k)).isEqualTo(new KeysetPage<>(List.of("a", "b"), Optional.empty()));
    assertThat(KeysetPage.cut(List.of("a"), 2, k -> k).next()).isEmpty();
    assertThat(KeysetPage.cut(List.<String>of(), 1, k -> k).next()).isEmpty();
  }

  @Test
  void theQueryAsksForOneRowMoreWithoutOverflow() {
    assertThat(KeysetPage.fetchSize(1)).isEqualTo(2);
    assertThat(KeysetPage.fetchSize(Integer.MAX_VALUE)).isEqualTo(Integer.MAX_VALUE + 1L);
  }

  @Test
  void mappingKeepsTheCursor() {
    KeysetPage<Integer> page = KeysetPage.cut(List.of("a", "bb", "ccc"), 2, k -> k).map(String::length);
    assertThat(page.items()).containsExactly(1, 2);
    assertThat(page.next()).contains("bb");
  }
}
