package dev.lethe.catalog.location;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TableRootsTest {
  @Test
  void rootsAreTheLocationAndTheWritePathsOutsideIt() {
    TableRoots roots = TableRoots.of("file:/wh/t", Map.of(
        "write.data.path", "/wh/t/data",
        "write.metadata.path", "/wh/meta/t"));
    assertThat(roots.roots()).extracting(LocationPath::toString).containsExactly("/wh/t", "/wh/meta/t");
    assertThat(roots.owns("file:///wh/t/data/x.parquet")).isTrue();
    assertThat(roots.owns("/wh/meta/t/v1.metadata.json")).isTrue();
    assertThat(roots.owns("/wh/t2/data/x.parquet")).isFalse();
    assertThat(roots.owns("/etc/passwd")).isFalse();
    assertThat(roots.owns("/wh/t/../../etc/passwd")).isFalse();
    assertThat(roots.owns("/wh/t/x?")).isFalse();
    assertThat(roots.owns((String) null)).isFalse();
  }

  @Test
  void aWritePathContainingTheLocationBecomesTheOnlyRoot() {
    TableRoots roots = TableRoots.of("/wh/t", Map.of("write.data.path", "/wh"));
    assertThat(roots.roots()).extracting(LocationPath::toString).containsExactly("/wh");
    assertThat(roots.location().toString()).isEqualTo("/wh/t");
  }

  @Test
  void badWritePathsAreRefusedNamingTheProperty() {
    assertThatThrownBy(() -> TableRoots.of("/wh/t", Map.of("write.metadata.path", "/wh/t/../x")))
        .isInstanceOf(InvalidLocationException.class).hasMessageContaining("write.metadata.path");
    assertThatThrownBy(() -> TableRoots.of("/wh/t", Map.of("write.data.path", "")))
        .hasMessageContaining("write.data.path");
    assertThatThrownBy(() -> TableRoots.of("file:/x?", Map.of())).hasMessageContaining("table location");
  }

  @Test
  void theMetadataFileMustLieInsideARoot() {
    TableRoots roots = TableRoots.of("/wh/t", Map.of());
    roots.checkMetadataFile("file:/wh/t/metadata/00001.metadata.json");
    assertThatThrownBy(() -> roots.checkMetadataFile("/wh/other/metadata/00001.metadata.json"))
        .hasMessageContaining("outside the table location");
  }

  @Test
  void overlapIsContainmentEitherWay() {
    TableRoots t = TableRoots.of("/wh/t", Map.of());
    assertThat(t.overlaps(TableRoots.of("file:///wh/t/sub", Map.of()))).isTrue();
    assertThat(t.overlaps(TableRoots.of("/wh", Map.of()))).isTrue();
    assertThat(t.overlaps(TableRoots.of("/wh/t2", Map.of()))).isFalse();
    assertThat(t.overlaps(TableRoots.of("/wh/u", Map.of("write.data.path", "/wh/t/data")))).isTrue();
  }

  @Test
  void allowedLocationsAreTheWarehousePlusTheProperty() {
    AllowedLocations allowed = AllowedLocations.of("/wh", Map.of(AllowedLocations.PROPERTY, " s3a://b/x , ,/data"));
    assertThat(allowed.locations()).extracting(LocationPath::toString).containsExactly("/wh", "s3://b/x", "/data");
    assertThat(allowed.check("table location", "file:///wh/ns/t").toString()).isEqualTo("/wh/ns/t");
    assertThat(allowed.allows(LocationPath.parse("s3://b/x/y"))).isTrue();
    assertThatThrownBy(() -> allowed.check("table location", "/elsewhere/t"))
        .isInstanceOf(InvalidLocationException.class).hasMessageContaining("outside the catalog's allowed locations");
    assertThatThrownBy(() -> allowed.check("table location", "/wh/../etc")).hasMessageContaining("'..'");
    assertThatThrownBy(() -> allowed.check(TableRoots.of("/wh/t", Map.of("write.data.path", "/tmp/d"))))
        .hasMessageContaining("/tmp/d");
  }
}
