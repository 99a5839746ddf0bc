package dev.lethe.catalog.iceberg;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

class EntityNamesTest {
  @Test
  void ordinaryNamesIncludingDotsAndUnicodeAreAccepted() {
    assertThatCode(() -> EntityNames.checkIdentifier("table", TableIdentifier.of("db", "sub.level", "t-1_ä"))).doesNotThrowAnyException();
    assertThatCode(() -> EntityNames.check("table", "x".repeat(255))).doesNotThrowAnyException();
  }

  @Test
  void emptySlashControlAndOverlongNamesAreRejectedWithTheReason() {
    assertThatThrownBy(() -> EntityNames.check("table", "")).hasMessageContaining("empty");
    assertThatThrownBy(() -> EntityNames.check("view", "a/b")).hasMessageContaining("'/'");
    assertThatThrownBy(() -> EntityNames.check("table", "a\nb")).hasMessageContaining("U+000A").hasMessageContaining("a\\u000ab");
    assertThatThrownBy(() -> EntityNames.check("table", "a\u007fb")).hasMessageContaining("U+007F");
    assertThatThrownBy(() -> EntityNames.check("table", "x".repeat(256))).hasMessageContaining("255");
    assertThatThrownBy(() -> EntityNames.checkNamespace(Namespace.empty())).hasMessageContaining("empty");
    assertThatThrownBy(() -> EntityNames.checkNamespace(Namespace.of("ok", "b\u001fad"))).hasMessageContaining("U+001F");
  }

  @Test
  void dotAndDotDotAreRejectedBecauseTheyWouldLeaveTheNamespaceDirectory() {
    assertThatThrownBy(() -> EntityNames.check("table", "..")).hasMessageContaining("'..'");
    assertThatThrownBy(() -> EntityNames.check("view", ".")).hasMessageContaining("'.'");
    assertThatThrownBy(() -> EntityNames.checkNamespace(Namespace.of("a", ".."))).hasMessageContaining("'..'");
    assertThatCode(() -> EntityNames.check("table", "...")).doesNotThrowAnyException();
  }
}
