package dev.lethe.store.core.format;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;

/**
 * The strict JSON reader every Lethe Store body and response goes through: a repeated field
 * ({@code STRICT_DUPLICATE_DETECTION}, {@code FAIL_ON_READING_DUP_TREE_KEY}) and anything after
 * the document ({@code FAIL_ON_TRAILING_TOKENS}) are errors, because a reader that let the last
 * repetition win, or ignored a second document, would act on a part the writer may not have meant.
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
      return n;
    } catch (IOException e) {
      throw new RecordFormatException("Invalid " + what + ": " + describe(e));
    }
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
