package dev.lethe.store.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lethe.store.core.tombstone.Tombstones;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The revision hash rules exactly as docs/store-format.md "Revisions" writes them down. */
class RevisionHashTest {

  @Test
  void aFormatTwoLiveHashIsTheSha256OfDomainKindLengthAndContentHashAsDocumented() {
    assertThat(RevisionHash.of(FormatVersion.V2, Kind.DOCUMENT, Body.Inline.text("hello"))).isEqualTo(ContentHash.ofUtf8(
        "lethe:record:v2\ndocument\n5\n2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"));
    // the values docs/store.md shows
    assertThat(RevisionHash.of(FormatVersion.V2, Kind.DOCUMENT, Body.Inline.text("hello\n"))).startsWith("95fb1885");
    assertThat(RevisionHash.of(FormatVersion.V2, Kind.DOCUMENT, Body.Inline.text("buy milk\n")))
        .isEqualTo("4e5ff5ccc6c511b16398a04b27631968896e5b8fb1abe3716312fc66ea17c68b");
  }

  @Test
  void kindsAndTombstonesNeverShareAHashInFormatTwoButDoInFormatOne() {
    Body domain = Body.Inline.text(Tombstones.DOMAIN);
    assertThat(RevisionHash.of(FormatVersion.V2, Kind.DOCUMENT, domain)).isNotEqualTo(Tombstones.HASH);
    assertThat(RevisionHash.of(FormatVersion.V2, Kind.DOCUMENT, domain))
        .isNotEqualTo(RevisionHash.of(FormatVersion.V2, Kind.LOG, domain));
    assertThat(RevisionHash.of(FormatVersion.V1, Kind.DOCUMENT, domain)).isEqualTo(Tombstones.HASH);
    assertThat(RevisionHash.of(FormatVersion.V1, Kind.TOMBSTONE, Body.EMPTY))
        .isEqualTo(RevisionHash.of(FormatVersion.V2, Kind.TOMBSTONE, Body.EMPTY)).isEqualTo(Tombstones.HASH);
  }

  @Test
  void inlineAndBlobStorageOfTheSameContentHaveTheSameRevisionAndTheBlobLengthCounts() {
    byte[] content = "same".getBytes(StandardCharsets.UTF_8);
    Body.Blob blob = new Body.Blob(ContentHash.of(content), content.length);
    assertThat(RevisionHash.of(FormatVersion.V2, Kind.DOCUMENT, blob))
        .isEqualTo(RevisionHash.of(FormatVersion.V2, Kind.DOCUMENT, new Body.Inline(content)))
        .isNotEqualTo(RevisionHash.of(FormatVersion.V2, Kind.DOCUMENT, new Body.Blob(blob.hash(), 5)));
    assertThat(RevisionHash.blobProblem(blob, content)).isEmpty();
    assertThat(RevisionHash.blobProblem(blob, "other".getBytes(StandardCharsets.UTF_8))).isPresent();
    assertThat(RevisionHash.blobProblem(new Body.Blob(blob.hash(), 5), content)).hasValueSatisfying(
        p -> assertThat(p).contains("4 bytes"));
  }

  @Test
  void aPageIsCutBeforeItsFirstCorruptRecord() {
    RecordKey a = new RecordKey("n", "c", "a");
    RecordKey b = new RecordKey("n", "c", "b");
    Body body = Body.Inline.text("x");
    Record good = new Record(a, Kind.DOCUMENT, RevisionHash.revision(1, Kind.DOCUMENT, body), null, List.of(), body,
        Meta.EMPTY, null, null, List.of());
    Record bad = new Record(b, Kind.DOCUMENT, good.revision(), null, List.of(), Body.Inline.text("y"), Meta.EMPTY,
        null, null, List.of());
    Page page = RevisionHash.checkPage(new Page(List.of(good, bad), java.util.Optional.empty()), k -> "here");
    assertThat(page.records()).containsExactly(good);
    assertThat(page.next()).contains(a);
    assertThat(RevisionHash.problem(bad)).hasValueSatisfying(p -> assertThat(p).contains("does not match"));
  }
}
