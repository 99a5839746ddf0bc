package dev.lethe.store.core.format;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lethe.store.core.Body;
import dev.lethe.store.core.FormatVersion;
import dev.lethe.store.core.Kind;
import dev.lethe.store.core.Meta;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A consumer {@code put}'s body over HTTP (docs/store.md "Routes"): a record draft in the
 * docs/store-format.md JSON. The key comes from the request path; {@code kind} (default {@code
 * document}), {@code body}, {@code meta.author}, {@code meta.origin}, {@code meta.labels} and
 * {@code links} are kept; the fields the store stamps ({@code revision}, {@code parent}, {@code
 * ancestors}, {@code bases}, {@code meta.created}, {@code meta.updated}, {@code deletedAt}, {@code deletedBlob})
 * may be present, as in a record read back from the store, and are ignored. An optional {@code
 * expected} revision rides along. Everything else is rejected: an unknown field, a repeated
 * field, text after the object, a {@code key} other than the path's, a {@code format} this build
 * does not read (a record read back in any supported version may be sent again).
 *
 * <p>Thread-safe.
 */
public final class DraftJson {

  /**
   * A parsed draft.
   *
   * @param draft the record to put (counter 0, the body's hash; the store stamps the rest)
   * @param expected the {@code expected} field, or empty when absent
   */
  public record Parsed(Record draft, Optional<Revision> expected) {}

  private static final Set<String> FIELDS = Set.of("format", "key", "kind", "revision", "parent",
      "ancestors", "body", "meta", "deletedAt", "deletedBlob", "links", "bases", "expected");
  private static final Set<String> META_FIELDS =
      Set.of("author", "origin", "created", "updated", "labels");

  private DraftJson() {}

  /**
   * Parses a draft for {@code key}.
   *
   * @throws RecordFormatException naming what is wrong; nothing may be written then
   */
  public static Parsed parse(byte[] json, RecordKey key) {
    JsonNode n = StrictJson.read(json, "record draft");
    if (!n.isObject()) {
      throw new RecordFormatException("Invalid record draft: expected a JSON object");
    }
    for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!FIELDS.contains(f)) {
        throw new RecordFormatException("Invalid record draft: unknown field '" + f + "'");
      }
    }
    JsonNode format = n.get("format");
    if (format != null && !(format.isIntegralNumber() && FormatVersion.isSupported(format.asLong()))) {
      throw new RecordFormatException("Invalid record draft: 'format' must be " + FormatVersion.V1
          + ", " + FormatVersion.V2 + " or " + FormatVersion.V3);
    }
    JsonNode k = n.get("key");
    if (k != null && !(k.isTextual() && k.textValue().equals(key.toString()))) {
      throw new RecordFormatException("Invalid record draft: 'key' " + k + " does not match the path's key "
          + key + " (the key comes from the path; leave it out)");
    }
    try {
      Kind kind = n.has("kind") ? new Kind(text(n, "kind")) : Kind.DOCUMENT;
      JsonNode bodyNode = n.get("body");
      if (bodyNode == null) {
        throw new RecordFormatException("Invalid record draft: missing field 'body'");
      }
      Body body = body(bodyNode);
      Meta meta = meta(n.get("meta"));
      List<RecordKey> links = new ArrayList<>();
      JsonNode l = n.get("links");
      if (l != null && !l.isNull()) {
        if (!l.isArray()) {
          throw new RecordFormatException("Invalid record draft: 'links' must be an array of keys");
        }
        for (JsonNode link : l) {
          if (!link.isTextual()) {
            throw new RecordFormatException("Invalid record draft: 'links' must be an array of keys");
          }
          links.add(RecordKey.parse(link.textValue()));
        }
      }
      JsonNode e = n.get("expected");
      Optional<Revision> expected = e == null || e.isNull()
          ? Optional.empty() : Optional.of(RevisionJson.fromNode(e, "expected"));
      Record draft = Record.draft(key, kind, body, meta);
      draft = new Record(key, kind, draft.revision(), null, List.of(), body, meta, null, null, links);
      return new Parsed(draft, expected);
    } catch (RecordFormatException ex) {
      throw ex;
    } catch (IllegalArgumentException ex) {
      throw new RecordFormatException("Invalid record draft: " + ex.getMessage(), ex);
    }
  }

  /**
   * Returns the JSON of a draft as the remote client sends it: the record format without {@code
   * format} (a draft's version is the server's to stamp, and a server of format 1 would refuse a 2)
   * plus {@code expected}.
   */
  public static byte[] encode(Record draft, Optional<Revision> expected) {
    ObjectNode n = new RecordJson().toJson(draft);
    n.remove("format");
    expected.ifPresent(e -> n.set("expected", RevisionJson.toNode(e)));
    try {
      return StrictJson.mapper().writeValueAsBytes(n);
    } catch (IOException e) {
      throw new IllegalStateException("Cannot format draft " + draft.key(), e);
    }
  }

  private static String text(JsonNode n, String field) {
    JsonNode v = n.get(field);
    if (v == null || !v.isTextual()) {
      throw new RecordFormatException("Invalid record draft: '" + field + "' must be a string");
    }
    return v.textValue();
  }

  private static Body body(JsonNode b) {
    if (b.isObject() && b.size() == 1 && b.has("text") && b.get("text").isTextual()) {
      return Body.Inline.text(b.get("text").textValue());
    }
    if (b.isObject() && b.size() == 1 && b.has("base64") && b.get("base64").isTextual()) {
      try {
        return new Body.Inline(Base64.getDecoder().decode(b.get("base64").textValue()));
      } catch (IllegalArgumentException e) {
        throw new RecordFormatException("Invalid record draft: 'body.base64' is not base64: " + e.getMessage());
      }
    }
    if (b.isObject() && b.size() == 2 && b.has("blob") && b.get("blob").isTextual()
        && b.has("length") && b.get("length").isIntegralNumber() && b.get("length").canConvertToLong()) {
      return new Body.Blob(b.get("blob").textValue(), b.get("length").longValue());
    }
    throw new RecordFormatException(
        "Invalid record draft: 'body' must be {\"text\":…}, {\"base64\":…} or {\"blob\":…,\"length\":…}");
  }

  private static Meta meta(JsonNode m) {
    if (m == null || m.isNull()) {
      return Meta.EMPTY;
    }
    if (!m.isObject()) {
      throw new RecordFormatException("Invalid record draft: 'meta' must be an object");
    }
    for (Iterator<String> it = m.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!META_FIELDS.contains(f)) {
        throw new RecordFormatException("Invalid record draft: unknown field 'meta." + f + "'");
      }
    }
    Map<String, String> labels = new LinkedHashMap<>();
    JsonNode l = m.get("labels");
    if (l != null && !l.isNull()) {
      if (!l.isObject()) {
        throw new RecordFormatException("Invalid record draft: 'meta.labels' must be an object of strings");
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = l.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (!e.getValue().isTextual()) {
          throw new RecordFormatException("Invalid record draft: label '" + e.getKey() + "' must be a string");
        }
        labels.put(e.getKey(), e.getValue().textValue());
      }
    }
    return new Meta(optionalText(m, "author"), optionalText(m, "origin"), null, null, labels);
  }

  private static String optionalText(JsonNode m, String field) {
    JsonNode v = m.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isTextual()) {
      throw new RecordFormatException("Invalid record draft: 'meta." + field + "' must be a string or null");
    }
    return v.textValue();
  }
}
