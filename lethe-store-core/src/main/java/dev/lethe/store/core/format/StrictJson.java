package dev.lethe.store.core.format;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.util.Iterator;
import java.util.Map;

/**
 * The strict JSON reader every Lethe Store body and response goes through: a repeated field
 * ({@code STRICT_DUPLICATE_DETECTION}, {@code FAIL_ON_READING_DUP_TREE_KEY}) and anything after
 * the document ({@code FAIL_ON_TRAILING_TOKENS}) are errors, because a reader that let the last
 * repetition win, or ignored a second document, would act on a part the writer may not have meant.
 * A string (a value or a field name) holding an unpaired UTF-16 surrogate ({@code "\\ud800"}) is an
 * error too: it has no UTF-8 form, so a record holding it would be hashed and stored as {@code ?},
 * silently not what was sent (docs/design/0412-store-json-is-well-formed-unicode.md).
 */
public final class StrictJson {

  private static final ObjectMapper MAPPER = JsonMapper.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .build();

  private StrictJson() {}

  /** The strict mapper, also for writing. Thread-safe. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /**
   * Parses one JSON document.
   *
   * @param what what the document is, for the message ("request body", "response")
   * @throws RecordFormatException with a one-line message
   */
  public static JsonNode read(byte[] json, String what) {
    try {
      JsonNode n = MAPPER.readTree(json);
      if (n == null || n.isMissingNode()) {
        throw new RecordFormatException("Invalid " + what + ": empty, expected a JSON document");
      }
      requireWellFormed(n, "", what);
      return n;
    } catch (IOException e) {
      throw new RecordFormatException("Invalid " + what + ": " + describe(e));
    }
  }

  /** Refuses the first string or field name under {@code n} that holds an unpaired surrogate. */
  private static void requireWellFormed(JsonNode n, String path, String what) {
    if (n.isTextual()) {
      check(n.textValue(), path, what);
    } else if (n.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> f = it.next();
        String child = path.isEmpty() ? f.getKey() : path + "." + f.getKey();
        check(f.getKey(), child, what);
        requireWellFormed(f.getValue(), child, what);
      }
    } else if (n.isArray()) {
      for (int i = 0; i < n.size(); i++) {
        requireWellFormed(n.get(i), path + "[" + i + "]", what);
      }
    }
  }

  private static void check(String s, String path, String what) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        String where = path.isEmpty() ? "" : " in '" + printable(path) + "'";
        throw new RecordFormatException(String.format(
            "Invalid %s: not valid Unicode: unpaired surrogate U+%04X at index %d%s", what, (int) c, i, where));
      }
    }
  }

  /** A field path for a message: at most 80 characters, unpaired surrogates shown as {@code \\uXXXX}. */
  private static String printable(String path) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < path.length() && b.length() < 80; i++) {
      char c = path.charAt(i);
      b.append(Character.isSurrogate(c) || c < 0x20 ? String.format("\\u%04x", (int) c) : String.valueOf(c));
    }
    return path.length() > 80 ? b + "…" : b.toString();
  }

  /** One line saying what is wrong with the JSON, without echoing it. */
  static String describe(IOException e) {
    String m = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
    if (m == null) {
      return "not valid JSON";
    }
    if (m.startsWith("Duplicate field")) {
      return "field " + m.substring("Duplicate field ".length()).replaceAll("\\s+.*$", "") + " appears twice";
    }
    if (m.contains("Trailing token") || m.contains("trailing token")) {
      return "text after the JSON document";
    }
    if (m.contains("end-of-input") || m.contains("Unexpected end")) {
      return "truncated JSON";
    }
    int nl = m.indexOf('\n');
    String first = nl < 0 ? m : m.substring(0, nl);
    return "not valid JSON (" + (first.length() > 120 ? first.substring(0, 120) + "…" : first) + ")";
  }
}
