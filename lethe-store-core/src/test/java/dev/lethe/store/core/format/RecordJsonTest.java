package dev.lethe.store.core.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lethe.store.core.Body;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.FormatVersion;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.RevisionHash;
import dev.lethe.store.core.lines.LineBase;
import dev.lethe.store.core.lines.Lines;
import dev.lethe.store.core.tombstone.Tombstones;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecordJsonTest {

  private final RecordJson json = new RecordJson();
  private final RecordKey key = new RecordKey("ns", "col", "id");
  private final Revision r1 = new Revision(1, ContentHash.ofUtf8("a"));

  private Record full(Body body) {
    return new Record(key, Kind.LOG, RevisionHash.revision(2, Kind.LOG, body), r1, List.of(r1), body,
        new Meta("alice", "laptop", 10L, 20L, Map.of("b", "2", "a", "1")), null, null,
        List.of(new RecordKey("ns", "col", "other")));
  }

  @Test
  void aRecordRoundTripsThroughJsonWithEveryField() {
    for (Body body : List.of(Body.Inline.text("line\n\u00e9\0"), new Body.Inline(new byte[] {(byte) 0xff, 0}),
        new Body.Blob(ContentHash.ofUtf8("blob"), 4))) {
      Record r = full(body);
      assertThat(json.parse(json.format(r))).isEqualTo(r);
    }
    Record t = new Record(key, Kind.TOMBSTONE, new Revision(2, Tombstones.HASH), r1, List.of(r1),
        Body.EMPTY, Meta.EMPTY, 123L, ContentHash.ofUtf8("b"), List.of());
    assertThat(json.parse(json.format(t))).isEqualTo(t);
  }

  @Test
  void aFormatOneRecordIsReadAsFormatOneAndWrittenBackUnchanged() {
    Body body = Body.Inline.text("hello\n");
    Record v1 = new Record(key, Kind.DOCUMENT, new Revision(1, ContentHash.ofUtf8("hello\n")), null, List.of(),
        body, Meta.EMPTY, null, null, List.of(), FormatVersion.V1);
    String text = json.format(v1);
    assertThat(text).startsWith("{\n  \"format\" : 1,");
    Record read = json.parse(text);
    assertThat(read.format()).isEqualTo(FormatVersion.V1);
    assertThat(read).isEqualTo(v1);
    assertThat(json.format(read)).isEqualTo(text);
    assertThat(RevisionHash.problem(read)).isEmpty();
  }

  /** A format-2 document exactly as a build before format 3 wrote it. */
  private static final String V2_DOC = """
      {
        "format" : 2,
        "key" : "ns/col/id",
        "kind" : "lines",
        "revision" : {
          "counter" : 2,
          "hash" : "%s"
        },
        "parent" : {
          "counter" : 1,
          "hash" : "%s"
        },
        "ancestors" : [ {
          "counter" : 1,
          "hash" : "%s"
        } ],
        "body" : {
          "text" : "l1\\nl3\\n"
        },
        "meta" : {
          "author" : "alice",
          "origin" : null,
          "created" : 10,
          "updated" : 20,
          "labels" : {
            "team" : "a"
          }
        },
        "deletedAt" : null,
        "deletedBlob" : null,
        "links" : [ "ns/col/other" ]
      }
      """;

  @Test
  void aFormatTwoRecordIsReadByItsOwnRuleAndWrittenBackUnchanged() {
    String v2hash = RevisionHash.of(FormatVersion.V2, Kind.LINES, Body.Inline.text("l1\nl3\n"));
    String doc = V2_DOC.formatted(v2hash, r1.hash(), r1.hash());
    Record read = json.parse(doc);
    assertThat(read.format()).isEqualTo(FormatVersion.V2);
    assertThat(read.bases()).isEmpty();
    assertThat(read.meta().labels()).containsEntry("team", "a");
    assertThat(RevisionHash.problem(read)).isEmpty();
    assertThat(json.format(read)).isEqualTo(doc);
    // the same document labelled format 3 does not prove its metadata, and has no 'bases'
    assertThatThrownBy(() -> json.parse(doc.replace("\"format\" : 2", "\"format\" : 3")))
        .hasMessageContaining("missing field 'bases'");
    // and a format-2 document cannot carry bases
    assertThatThrownBy(() -> json.parse(doc.replace("\"links\"", "\"bases\" : [ ],\n  \"links\"")))
        .hasMessageContaining("unknown field 'bases'");
  }

  @Test
  void aFormatThreeRecordKeepsItsBasesThroughJsonAndRefusesBadOnes() {
    Body body = Body.Inline.text("l1\nl3\nl4\nl5\n");
    LineBase base = new LineBase(r1, List.of(2, 3), List.of("l2"), Map.of("x", "1"), List.of(key));
    Record r = new Record(key, Kind.LINES, RevisionHash.revision(2, Kind.LINES, body), r1, List.of(r1), body,
        Meta.EMPTY, null, null, List.of(), FormatVersion.V3, List.of(base));
    String text = json.format(r);
    assertThat(text).contains("\"without\" : [ [ 2, 3 ] ]").contains("\"with\" : [ \"l2\" ]");
    assertThat(json.parse(text)).isEqualTo(r);
    assertThat(Lines.baseOf(json.parse(text), r1).orElseThrow().lines()).containsExactlyInAnyOrder("l1", "l2", "l3");
    assertThatThrownBy(() -> json.parse(text.replace("[ 2, 3 ]", "[ 2, 4 ]")))
        .isInstanceOf(RecordFormatException.class).hasMessageContaining("within the body's 4 lines");
    assertThatThrownBy(() -> json.parse(text.replace("[ 2, 3 ]", "[ 3, 2 ]")))
        .isInstanceOf(RecordFormatException.class).hasMessageContaining("not ascending");
    Revision other = new Revision(1, ContentHash.ofUtf8("b"));
    String foreign = text.replaceFirst("(\"bases\" : \\[ \\{\\s*\"revision\" : \\{\\s*\"counter\" : 1,\\s*\"hash\" : \")"
        + r1.hash(), "$1" + other.hash());
    assertThat(foreign).isNotEqualTo(text);
    assertThatThrownBy(() -> json.parse(foreign))
        .isInstanceOf(RecordFormatException.class).hasMessageContaining("is not among its ancestors");
  }

  @Test
  void theJsonIsHumanReadableWithAFormatVersionAndFixedFieldOrder() {
    String text = json.format(full(Body.Inline.text("hello")));
    assertThat(text).startsWith("{\n  \"format\" : 3,\n  \"key\" : \"ns/col/id\",\n  \"kind\" : \"log\"");
    assertThat(text).contains("\"text\" : \"hello\"").contains("\"labels\" : {\n      \"a\" : \"1\"");
  }

  @Test
  void anUnknownFormatVersionIsALoudError() {
    String text = json.format(full(Body.Inline.text("x"))).replace("\"format\" : 3", "\"format\" : 4");
    assertThatThrownBy(() -> json.parse(text)).isInstanceOf(UnsupportedFormatException.class)
        .hasMessageContaining("format version 4 is not supported");
  }

  @Test
  void invalidDocumentsAreRejectedNamingTheProblem() {
    assertThatThrownBy(() -> json.parse("{not json")).hasMessageContaining("invalid JSON");
    assertThatThrownBy(() -> json.parse("{\"format\":1}")).hasMessageContaining("missing field 'key'");
    String good = json.format(full(Body.Inline.text("x")));
    assertThatThrownBy(() -> json.parse(good.replace("ns/col/id", "ns/../id")))
        .isInstanceOf(RecordFormatException.class).hasMessageContaining("Invalid collection");
    assertThatThrownBy(() -> json.parse(good.replace("\"links\"", "\"extra\" : 1, \"links\"")))
        .hasMessageContaining("unknown field 'extra'");
    assertThatThrownBy(() -> json.parse(good.replace("\"origin\"", "\"extra\" : 1, \"origin\"")))
        .hasMessageContaining("unknown field 'meta.extra'");
  }

  @Test
  void revisionJsonParsesOnlyTheDocumentedShape() {
    String h = ContentHash.ofUtf8("a");
    assertThat(RevisionJson.parse("{\"counter\":3,\"hash\":\"" + h + "\"}")).isEqualTo(new Revision(3, h));
    assertThat(RevisionJson.format(new Revision(3, h))).isEqualTo("{\"counter\":3,\"hash\":\"" + h + "\"}");
    for (String bad : List.of("", "3", "{", "{\"counter\":3}", "{\"counter\":\"3\",\"hash\":\"" + h + "\"}",
        "{\"counter\":-1,\"hash\":\"" + h + "\"}", "{\"counter\":1,\"hash\":\"abc\"}",
        "{\"counter\":1.5,\"hash\":\"" + h + "\"}", "{\"counter\":1,\"hash\":\"" + h + "\",\"x\":1}",
        "{\"counter\":99999999999999999999999,\"hash\":\"" + h + "\"}")) {
      assertThatThrownBy(() -> RevisionJson.parse(bad)).as(bad)
          .isInstanceOf(RecordFormatException.class).hasMessageStartingWith("Invalid revision");
    }
  }

  @Test
  void aRevisionWithTrailingTextOrARepeatedFieldIsRejected() {
    String h = ContentHash.ofUtf8("a");
    String good = "{\"counter\":3,\"hash\":\"" + h + "\"}";
    for (String bad : List.of(good + " garbage", good + "{\"counter\":4}", good + "]",
        "{\"counter\":3,\"counter\":4,\"hash\":\"" + h + "\"}")) {
      assertThatThrownBy(() -> RevisionJson.parse(bad)).as(bad)
          .isInstanceOf(RecordFormatException.class).hasMessageStartingWith("Invalid revision");
    }
  }

  @Test
  void aRecordFileWithTrailingTextOrARepeatedFieldIsALoudError() {
    String good = json.format(full(Body.Inline.text("x")));
    assertThatThrownBy(() -> json.parse(good + "garbage after the record\n"))
        .isInstanceOf(RecordFormatException.class).hasMessageContaining("invalid JSON");
    assertThatThrownBy(() -> json.parse(good + "{}"))
        .isInstanceOf(RecordFormatException.class).hasMessageContaining("invalid JSON");
    String twoKinds = good.replace("\"kind\" : \"log\",", "\"kind\" : \"log\",\n  \"kind\" : \"tombstone\",");
    assertThat(twoKinds).isNotEqualTo(good);
    assertThatThrownBy(() -> json.parse(twoKinds))
        .isInstanceOf(RecordFormatException.class).hasMessageContaining("kind");
    String twoAuthors = good.replace("\"author\" : \"alice\",", "\"author\" : \"alice\", \"author\" : \"mallory\",");
    assertThat(twoAuthors).isNotEqualTo(good);
    assertThatThrownBy(() -> json.parse(twoAuthors))
        .isInstanceOf(RecordFormatException.class).hasMessageContaining("author");
  }

  /**
   * A field of the wrong JSON type is refused, never read as text: {@code "author": 5} used to be
   * stored as {@code "5"}, a label {@code {"b":1}} as {@code ""}, a blob length {@code 1.5} as 1.
   */
  @Test
  void aFieldOfTheWrongJsonTypeIsRefusedNotCoercedToText() {
    String blob = json.format(full(new Body.Blob(ContentHash.ofUtf8("blob"), 4)));
    String text = json.format(full(Body.Inline.text("hello")));
    assertThat(json.parse(text)).isEqualTo(full(Body.Inline.text("hello")));
    Map<String, String> bad = new java.util.LinkedHashMap<>();
    bad.put("meta.author", text.replace("\"author\" : \"alice\"", "\"author\" : 5"));
    bad.put("meta.origin", text.replace("\"origin\" : \"laptop\"", "\"origin\" : {\"x\" : 1}"));
    bad.put("label 'a'", text.replace("\"a\" : \"1\"", "\"a\" : {\"b\" : 1}"));
    bad.put("deletedBlob", text.replace("\"deletedBlob\" : null", "\"deletedBlob\" : 7"));
    bad.put("links", text.replace("\"ns/col/other\"", "5"));
    bad.put("'body'", blob.replace("\"length\" : 4", "\"length\" : 4.5"));
    bad.put("'body' ", blob.replace("\"blob\" : \"" + ContentHash.ofUtf8("blob") + "\"", "\"blob\" : 5"));
    bad.forEach((what, doc) -> {
      assertThat(doc).as(what).isNotIn(text, blob);
      assertThatThrownBy(() -> json.parse(doc)).as(what).isInstanceOf(RecordFormatException.class)
          .hasMessageContaining(what.trim());
    });
  }
}
