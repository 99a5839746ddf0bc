package dev.lethe.store.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class RecordKeyTest {

  @ParameterizedTest
  @ValueSource(strings = {"", ".", "..", "a/b", "a\0b", "caf\u00e9", "sp ace", "a\\b", "\u2028"})
  void invalidIdsAreRejectedWithAMessageNamingThePart(String id) {
    assertThatThrownBy(() -> new RecordKey("ns", "col", id))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Invalid id");
  }

  @Test
  void partsLongerThan255CharactersAreRejected() {
    assertThat(new RecordKey("ns", "col", "a".repeat(255)).id()).hasSize(255);
    assertThatThrownBy(() -> new RecordKey("a".repeat(256), "col", "id"))
        .hasMessageContaining("longer than 255");
  }

  @Test
  void validCharactersAndDotsInsideAPartAreAccepted() {
    RecordKey k = new RecordKey("My-ns_1", "c.2", "..x");
    assertThat(k.toString()).isEqualTo("My-ns_1/c.2/..x");
    assertThat(RecordKey.parse("My-ns_1/c.2/..x")).isEqualTo(k);
  }

  @Test
  void parseRequiresExactlyThreeParts() {
    assertThatThrownBy(() -> RecordKey.parse("a/b")).hasMessageContaining("namespace/collection/id");
    assertThatThrownBy(() -> RecordKey.parse("a/b/c/d")).hasMessageContaining("namespace/collection/id");
    assertThatThrownBy(() -> RecordKey.parse("a/../c")).hasMessageContaining("Invalid collection");
  }

  @Test
  void aPrefixWithACollectionNeedsANamespace() {
    assertThatThrownBy(() -> new KeyPrefix(null, "c")).hasMessageContaining("needs a namespace");
    assertThat(KeyPrefix.collection("n", "c").matches(new RecordKey("n", "c", "i"))).isTrue();
    assertThat(KeyPrefix.collection("n", "c").matches(new RecordKey("n", "d", "i"))).isFalse();
  }

  @Test
  void revisionsOrderByCounterThenHash() {
    Revision a = new Revision(2, ContentHash.ofUtf8("z"));
    Revision b = new Revision(3, ContentHash.ofUtf8("a"));
    Revision c = new Revision(3, "f".repeat(64));
    assertThat(a).isLessThan(b);
    assertThat(b).isLessThan(c);
    assertThat(Revision.max(c, a)).isEqualTo(c);
    assertThatThrownBy(() -> new Revision(-1, "f".repeat(64))).hasMessageContaining("negative");
    assertThatThrownBy(() -> new Revision(1, "F".repeat(64))).hasMessageContaining("hex");
  }

  @Test
  void unknownKindsAreOpaqueAndLogsAreAppendOnly() {
    assertThat(new Kind("whatever").mergeClass()).isEqualTo(MergeClass.OPAQUE);
    assertThat(Kind.LOG.mergeClass()).isEqualTo(MergeClass.APPEND_ONLY);
    assertThat(Kind.TOMBSTONE.isTombstone()).isTrue();
    assertThatThrownBy(() -> new Kind("Bad Kind")).hasMessageContaining("Invalid kind");
  }
}
