package dev.lethe.server.management;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The pure rule of docs/design/0424-what-a-reader-sees-of-paths.md. */
class LastErrorRedactionTest {
  private static final String META = "file:/w/main/db/t/metadata/00001-a.metadata.json";

  @Test
  void pathsUnderTheTableRootAreShownRelativeToItInEverySpelling() {
    assertThat(LastErrorRedaction.forReader("Manifest /w/main/db/t/metadata/m1.avro does not exist", META))
        .isEqualTo("Manifest <table>/metadata/m1.avro does not exist");
    assertThat(LastErrorRedaction.forReader("'file:/w/main/db/t/data/x.parquet' could not be deleted.", META))
        .isEqualTo("'<table>/data/x.parquet' could not be deleted.");
    assertThat(LastErrorRedaction.forReader("under file:///w/main/db/t: 2 files", META))
        .isEqualTo("under <table>: 2 files");
  }

  @Test
  void everyOtherAbsolutePathIsAPlaceholder() {
    assertThat(LastErrorRedaction.forReader("reached through /w/main/db/t2/x (link to /etc/passwd), s3://b/k/y", META))
        .isEqualTo("reached through <path outside the table> (link to <path outside the table>), "
            + "<path outside the table>");
    // a sibling whose name starts like the root is not under it
    assertThat(LastErrorRedaction.forReader("/w/main/db/tt/data/x", META)).isEqualTo("<path outside the table>");
    assertThat(LastErrorRedaction.forReader("/w/main/db/t/x", null)).isEqualTo("<path outside the table>");
  }

  @Test
  void textWithoutPathsIsKeptAndNullStaysNull() {
    assertThat(LastErrorRedaction.forReader("Timed out after 30 s: 3/4 phases, ratio 1/2", META))
        .isEqualTo("Timed out after 30 s: 3/4 phases, ratio 1/2");
    assertThat(LastErrorRedaction.forReader(null, META)).isNull();
  }

  @Test
  void aMetadataFileOutsideAMetadataDirectoryHasItsDirectoryAsRoot() {
    assertThat(LastErrorRedaction.root("s3://b/w/t/00001.metadata.json")).isEqualTo("s3://b/w/t");
    assertThat(LastErrorRedaction.root("/w/t/metadata/00001.metadata.json")).isEqualTo("/w/t");
  }
}
