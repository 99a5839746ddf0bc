package dev.lethe.store.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@link Page#cut} by count and by bytes (docs/design/0110-pages-cut-by-bytes.md). */
class PageTest {

  private static Record rec(String id, int chars) {
    return Record.draft(new RecordKey("ns", "col", id), Kind.DOCUMENT, Body.Inline.text("x".repeat(chars)),
        Meta.byAuthor("ä\uD83D\uDE00"));
  }

  @Test
  void aPageStopsAddingRecordsOnceTheBudgetIsReachedAndNamesItsLastKey() {
    List<Record> read = List.of(rec("a", 100), rec("b", 100), rec("c", 100), rec("d", 100));
    long one = Page.sizeOf(read.get(0));
    Page p = Page.cut(read, 1000, one + 1);
    assertThat(p.records()).extracting(r -> r.key().id()).containsExactly("a", "b");
    assertThat(p.next()).contains(read.get(1).key());
  }

  @Test
  void aRecordLargerThanTheBudgetTravelsAlone() {
    List<Record> read = List.of(rec("a", 5000), rec("b", 10));
    Page p = Page.cut(read, 1000, 100);
    assertThat(p.records()).extracting(r -> r.key().id()).containsExactly("a");
    assertThat(p.next()).contains(read.get(0).key());
    // a scan stopped at the budget may have nothing after it: the next page is then empty
    Page alone = Page.cut(read.subList(0, 1), 1000, 100);
    assertThat(alone.next()).contains(read.get(0).key());
  }

  @Test
  void underTheBudgetAPageIsCutByCountAsBefore() {
    List<Record> read = List.of(rec("a", 1), rec("b", 1), rec("c", 1));
    assertThat(Page.cut(read, 2, Page.MAX_BYTES).next()).contains(read.get(1).key());
    assertThat(Page.cut(read, 3, Page.MAX_BYTES).next()).isEmpty();
    assertThat(Page.cut(List.of(), 3, Page.MAX_BYTES)).isEqualTo(new Page(List.of(), Optional.empty()));
  }

  @Test
  void sizeIsTheUtf8LengthOfTheRecordJson() {
    Record r = rec("a", 3);
    assertThat(Page.sizeOf(r)).isEqualTo(new dev.lethe.store.core.format.RecordJson().encode(r).length);
  }
}
