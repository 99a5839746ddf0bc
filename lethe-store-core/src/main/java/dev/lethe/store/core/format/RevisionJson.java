package dev.lethe.store.core.format;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lethe.store.core.Revision;
import java.util.Iterator;

/**
 * The JSON form of a revision, {@code {"counter":3,"hash":"…"}}, as printed by {@code lethe store
 * get} and accepted by {@code --expected} (docs/store-format.md).
 */
public final class RevisionJson {

  // Text after the object or a repeated field would otherwise be ignored (or the last one win),
  // so a mistyped --expected could delete or overwrite at a revision the user did not mean.
  private static final ObjectMapper MAPPER = JsonMapper.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .build();

  private RevisionJson() {}

  /** Returns the compact JSON of {@code revision}. */
  public static String format(Revision revision) {
    return toNode(revision).toString();
  }

  /** Returns the JSON tree of {@code revision}, {@code {"counter":…,"hash":"…"}}. */
  public static ObjectNode toNode(Revision revision) {
    ObjectNode n = MAPPER.createObjectNode();
    n.put("counter", revision.counter());
    n.put("hash", revision.hash());
    return n;
  }

  /**
   * Parses a revision object with exactly the fields {@code counter} (integer ≥ 0) and {@code hash}
   * (64 lowercase hex characters), each once, and nothing after the object.
   *
   * @throws RecordFormatException with a one-line message naming what is wrong
   */
  public static Revision parse(String json) {
    JsonNode node;
    try {
      node = MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      String why = e.getOriginalMessage() != null && e.getOriginalMessage().startsWith("Duplicate field")
          ? "field " + e.getOriginalMessage().substring("Duplicate field ".length()) + " appears twice"
          : "not exactly one JSON object";
      throw new RecordFormatException(
          "Invalid revision: " + why + " (expected {\"counter\":N,\"hash\":\"…\"})");
    }
    return fromNode(node, "revision");
  }

  /**
   * Reads a revision from a JSON tree already parsed by the caller.
   *
   * @param field the field's name, used in messages ("expected", "revision")
   * @throws RecordFormatException with a one-line message naming {@code field}
   */
  public static Revision fromNode(JsonNode node, String field) {
    if (node == null || !node.isObject()) {
      throw new RecordFormatException("Invalid " + field + ": expected an object {\"counter\":N,\"hash\":\"…\"}");
    }
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String name = it.next();
      if (!name.equals("counter") && !name.equals("hash")) {
        throw new RecordFormatException("Invalid " + field + ": unknown field '" + name + "'");
      }
    }
    JsonNode counter = node.get("counter");
    JsonNode hash = node.get("hash");
    if (counter == null || !counter.isIntegralNumber() || !counter.canConvertToLong()) {
      throw new RecordFormatException("Invalid " + field + ": 'counter' must be an integer");
    }
    if (hash == null || !hash.isTextual()) {
      throw new RecordFormatException("Invalid " + field + ": 'hash' must be a string");
    }
    try {
      return new Revision(counter.longValue(), hash.textValue());
    } catch (IllegalArgumentException e) {
      throw new RecordFormatException(e.getMessage().replace("Invalid revision", "Invalid " + field));
    }
  }
}
