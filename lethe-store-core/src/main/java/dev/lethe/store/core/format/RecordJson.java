package dev.lethe.store.core.format;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lethe.store.core.Body;
import dev.lethe.store.core.FormatVersion;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.lines.LineBase;
import dev.lethe.store.core.lines.Lines;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The stable, human-readable JSON form of a {@link Record} (docs/store-format.md). Versions 1, 2
 * and 3 are read (only version 3 has the field {@code bases}); a record is written with its own {@link Record#format} (a copied version-1 record
 * stays version 1, because its revision hash follows the version-1 rule), and this build stamps
 * {@value #FORMAT_VERSION} on what it writes itself. Every field is always written, in a fixed
 * order; a document with another format version is rejected with {@link
 * UnsupportedFormatException}, never guessed at. Decoding checks the document's shape only; whether
 * the revision proves the content is {@link dev.lethe.store.core.RevisionHash}'s to say.
 *
 * <p>Thread-safe.
 */
public final class RecordJson {

  /** The format version this build stamps on the records it writes itself. */
  public static final int FORMAT_VERSION = FormatVersion.CURRENT;

  private static final Set<String> FIELDS = Set.of("format", "key", "kind", "revision", "parent",
      "ancestors", "body", "meta", "deletedAt", "deletedBlob", "links");

  private static final Set<String> FIELDS_V3 = Set.of("format", "key", "kind", "revision", "parent",
      "ancestors", "body", "meta", "deletedAt", "deletedBlob", "links", "bases");

  private static final Set<String> BASE_FIELDS = Set.of("revision", "without", "with", "labels", "links");

  private static final Set<String> META_FIELDS =
      Set.of("author", "origin", "created", "updated", "labels");

  // A hand-edited file with a repeated field or text after the record is ambiguous: reject it
  // rather than let the last repetition (or the first document) silently win.
  private final ObjectMapper mapper = JsonMapper.builder()
      .enable(SerializationFeature.INDENT_OUTPUT)
      .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .build();

  /** Returns the JSON text of {@code record}, pretty-printed, ending with a newline. */
  public String format(Record record) {
    try {
      return mapper.writeValueAsString(toNode(record)) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot format record " + record.key(), e);
    }
  }

  /** Returns the UTF-8 bytes of {@link #format}. */
  public byte[] encode(Record record) {
    return format(record).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Parses a record document.
   *
   * @throws UnsupportedFormatException when {@code format} is not a version this build reads
   * @throws RecordFormatException when the document is not valid record JSON
   */
  public Record decode(byte[] json) {
    JsonNode root;
    try {
      root = mapper.readTree(json);
    } catch (java.io.IOException e) {
      throw new RecordFormatException("invalid JSON: " + firstLine(e.getMessage()), e);
    }
    return fromNode(root);
  }

  /** {@link #decode} of a string. */
  public Record parse(String json) {
    return decode(json.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Returns the JSON tree of {@code record}: the document {@link #format} writes, for embedding in
   * a larger document (a page of a listing).
   */
  public ObjectNode toJson(Record record) {
    return toNode(record);
  }

  /**
   * Reads a record from a JSON tree already parsed by the caller (with duplicate detection, as
   * {@link #decode} parses).
   *
   * @throws UnsupportedFormatException when {@code format} is not a version this build reads
   * @throws RecordFormatException when the tree is not a valid record
   */
  public Record fromJson(JsonNode tree) {
    return fromNode(tree);
  }

  private ObjectNode toNode(Record r) {
    ObjectNode n = mapper.createObjectNode();
    n.put("format", r.format());
    n.put("key", r.key().toString());
    n.put("kind", r.kind().name());
    n.set("revision", RevisionJson.toNode(r.revision()));
    n.set("parent", r.parent() == null ? n.nullNode() : RevisionJson.toNode(r.parent()));
    ArrayNode anc = n.putArray("ancestors");
    r.ancestors().forEach(a -> anc.add(RevisionJson.toNode(a)));
    ObjectNode body = n.putObject("body");
    if (r.body() instanceof Body.Inline inline) {
      String text = utf8(inline.bytes());
      if (text != null) {
        body.put("text", text);
      } else {
        body.put("base64", Base64.getEncoder().encodeToString(inline.bytes()));
      }
    } else if (r.body() instanceof Body.Blob blob) {
      body.put("blob", blob.hash());
      body.put("length", blob.length());
    }
    ObjectNode meta = n.putObject("meta");
    meta.put("author", r.meta().author());
    meta.put("origin", r.meta().origin());
    meta.put("created", r.meta().created());
    meta.put("updated", r.meta().updated());
    ObjectNode labels = meta.putObject("labels");
    r.meta().labels().forEach(labels::put);
    n.put("deletedAt", r.deletedAt());
    n.put("deletedBlob", r.deletedBlob());
    ArrayNode links = n.putArray("links");
    r.links().forEach(l -> links.add(l.toString()));
    if (r.format() >= FormatVersion.V3) {
      ArrayNode bases = n.putArray("bases");
      for (LineBase b : r.bases()) {
        ObjectNode bn = bases.addObject();
        bn.set("revision", RevisionJson.toNode(b.revision()));
        ArrayNode without = bn.putArray("without");
        ranges(b.without()).forEach(rg -> without.addArray().add(rg[0]).add(rg[1]));
        ArrayNode with = bn.putArray("with");
        b.with().forEach(with::add);
        ObjectNode bl = bn.putObject("labels");
        b.labels().forEach(bl::put);
        ArrayNode blinks = bn.putArray("links");
        b.links().forEach(l -> blinks.add(l.toString()));
      }
    }
    return n;
  }

  // Runs of consecutive indexes as [first, last] pairs: an append-only history is a few runs.
  private static List<int[]> ranges(List<Integer> ascending) {
    List<int[]> out = new ArrayList<>();
    for (int i : ascending) {
      if (!out.isEmpty() && out.get(out.size() - 1)[1] == i - 1) {
        out.get(out.size() - 1)[1] = i;
      } else {
        out.add(new int[] {i, i});
      }
    }
    return out;
  }

  private List<LineBase> bases(JsonNode n, List<Revision> ancestors, Body body) {
    List<LineBase> out = new ArrayList<>();
    int lines = body instanceof Body.Inline inline ? Lines.split(inline.bytes()).size() : 0;
    for (JsonNode b : array(n, "bases")) {
      if (!b.isObject()) {
        throw new RecordFormatException("invalid record: 'bases' must be an array of objects");
      }
      for (Iterator<String> it = b.fieldNames(); it.hasNext(); ) {
        String f = it.next();
        if (!BASE_FIELDS.contains(f)) {
          throw new RecordFormatException("invalid record: unknown field 'bases[]." + f + "'");
        }
      }
      Revision rev = RevisionJson.fromNode(required(b, "revision"), "base revision");
      if (!ancestors.contains(rev)) {
        throw new RecordFormatException("invalid record: base " + rev + " is not among its ancestors");
      }
      List<Integer> without = new ArrayList<>();
      for (JsonNode rg : array(b, "without")) {
        if (!rg.isArray() || rg.size() != 2 || !rg.get(0).canConvertToInt() || !rg.get(1).canConvertToInt()
            || !rg.get(0).isIntegralNumber() || !rg.get(1).isIntegralNumber()) {
          throw new RecordFormatException("invalid record: 'bases[].without' must be [first, last] index pairs");
        }
        int first = rg.get(0).intValue();
        int last = rg.get(1).intValue();
        if (first < 0 || last < first || last >= lines
            || (!without.isEmpty() && first <= without.get(without.size() - 1))) {
          throw new RecordFormatException("invalid record: 'bases[].without' range [" + first + ", "
              + last + "] is not ascending within the body's " + lines + " lines");
        }
        for (int i = first; i <= last; i++) {
          without.add(i);
        }
      }
      List<String> with = new ArrayList<>();
      for (JsonNode w : array(b, "with")) {
        if (!w.isTextual()) {
          throw new RecordFormatException("invalid record: 'bases[].with' must be an array of lines (strings)");
        }
        with.add(w.textValue());
      }
      Map<String, String> labels = labels(required(b, "labels"), "bases[].labels");
      List<RecordKey> links = new ArrayList<>();
      for (JsonNode l : array(b, "links")) {
        if (!l.isTextual()) {
          throw new RecordFormatException("invalid record: 'bases[].links' must be an array of keys (strings)");
        }
        links.add(RecordKey.parse(l.textValue()));
      }
      out.add(new LineBase(rev, without, with, labels, links));
    }
    return out;
  }

  private Record fromNode(JsonNode n) {
    if (n == null || !n.isObject()) {
      throw new RecordFormatException("invalid record: expected a JSON object");
    }
    JsonNode version = n.get("format");
    if (version == null || !version.isIntegralNumber()) {
      throw new RecordFormatException("invalid record: missing integer field 'format'");
    }
    if (!FormatVersion.isSupported(version.asLong())) {
      throw new UnsupportedFormatException("record format version " + version.asText()
          + " is not supported (this build reads versions " + FormatVersion.V1 + ", "
          + FormatVersion.V2 + " and " + FormatVersion.V3 + ")");
    }
    boolean v3 = version.asLong() >= FormatVersion.V3;
    for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!(v3 ? FIELDS_V3 : FIELDS).contains(f)) {
        throw new RecordFormatException("invalid record: unknown field '" + f + "'");
      }
    }
    try {
      RecordKey key = RecordKey.parse(text(n, "key"));
      Kind kind = new Kind(text(n, "kind"));
      Revision revision = RevisionJson.fromNode(n.get("revision"), "revision");
      JsonNode p = required(n, "parent");
      Revision parent = p.isNull() ? null : RevisionJson.fromNode(p, "parent");
      List<Revision> ancestors = new ArrayList<>();
      for (JsonNode a : array(n, "ancestors")) {
        ancestors.add(RevisionJson.fromNode(a, "ancestor"));
      }
      Body body = body(required(n, "body"));
      Meta meta = meta(required(n, "meta"));
      Long deletedAt = optionalLong(n, "deletedAt");
      required(n, "deletedBlob");
      String deletedBlob = optionalText(n, "deletedBlob", "deletedBlob");
      List<RecordKey> links = new ArrayList<>();
      for (JsonNode l : array(n, "links")) {
        if (!l.isTextual()) {
          throw new RecordFormatException("invalid record: 'links' must be an array of keys (strings)");
        }
        links.add(RecordKey.parse(l.textValue()));
      }
      List<LineBase> bases = v3 ? bases(n, ancestors, body) : List.of();
      return new Record(key, kind, revision, parent, ancestors, body, meta, deletedAt, deletedBlob,
          links, version.intValue(), bases);
    } catch (RecordFormatException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw new RecordFormatException("invalid record: " + e.getMessage(), e);
    }
  }

  private Body body(JsonNode b) {
    if (b.has("text") && b.size() == 1 && b.get("text").isTextual()) {
      return Body.Inline.text(b.get("text").textValue());
    }
    if (b.has("base64") && b.size() == 1 && b.get("base64").isTextual()) {
      return new Body.Inline(Base64.getDecoder().decode(b.get("base64").textValue()));
    }
    if (b.has("blob") && b.has("length") && b.size() == 2 && b.get("blob").isTextual()
        && b.get("length").isIntegralNumber() && b.get("length").canConvertToLong()) {
      return new Body.Blob(b.get("blob").textValue(), b.get("length").longValue());
    }
    throw new RecordFormatException(
        "invalid record: 'body' must be {\"text\":…}, {\"base64\":…} or {\"blob\":…,\"length\":…}");
  }

  private Meta meta(JsonNode m) {
    if (!m.isObject()) {
      throw new RecordFormatException("invalid record: 'meta' must be an object");
    }
    for (Iterator<String> it = m.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!META_FIELDS.contains(f)) {
        throw new RecordFormatException("invalid record: unknown field 'meta." + f + "'");
      }
    }
    Map<String, String> labels = labels(m.get("labels"), "meta.labels");
    return new Meta(optionalText(m, "author", "meta.author"), optionalText(m, "origin", "meta.origin"),
        optionalLong(m, "created"), optionalLong(m, "updated"), labels);
  }

  private static Map<String, String> labels(JsonNode l, String name) {
    Map<String, String> labels = new LinkedHashMap<>();
    if (l != null && !l.isNull()) {
      if (!l.isObject()) {
        throw new RecordFormatException("invalid record: '" + name + "' must be an object");
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = l.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (!e.getValue().isTextual()) {
          throw new RecordFormatException("invalid record: label '" + e.getKey() + "' must be a string");
        }
        labels.put(e.getKey(), e.getValue().textValue());
      }
    }
    return labels;
  }

  private static JsonNode required(JsonNode n, String field) {
    JsonNode v = n.get(field);
    if (v == null) {
      throw new RecordFormatException("invalid record: missing field '" + field + "'");
    }
    return v;
  }

  private static String text(JsonNode n, String field) {
    JsonNode v = required(n, field);
    if (!v.isTextual()) {
      throw new RecordFormatException("invalid record: '" + field + "' must be a string");
    }
    return v.textValue();
  }

  private static Iterable<JsonNode> array(JsonNode n, String field) {
    JsonNode v = required(n, field);
    if (!v.isArray()) {
      throw new RecordFormatException("invalid record: '" + field + "' must be an array");
    }
    return v;
  }

  /**
   * A string field or null. Any other JSON type is refused: read as text it would be stored as
   * something the writer never sent ({@code 5} as {@code "5"}, an object as {@code ""}).
   */
  private static String optionalText(JsonNode n, String field, String name) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isTextual()) {
      throw new RecordFormatException("invalid record: '" + name + "' must be a string or null");
    }
    return v.textValue();
  }

  private static Long optionalLong(JsonNode n, String field) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isIntegralNumber() || !v.canConvertToLong()) {
      throw new RecordFormatException("invalid record: '" + field + "' must be an integer (ms)");
    }
    return v.longValue();
  }

  private static String utf8(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
