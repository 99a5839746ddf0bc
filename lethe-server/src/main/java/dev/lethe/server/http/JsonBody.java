package dev.lethe.server.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.javalin.http.Context;
import java.io.IOException;
import java.util.Iterator;
import java.util.Set;

/**
 * The one strict reader of the management routes' JSON bodies and parameters
 * (docs/design/0400-strict-request-input.md): one JSON value, a repeated key or text after the
 * value is refused, never resolved. Every refusal is an {@link IllegalArgumentException} (400)
 * whose message starts with {@code "Invalid <noun>: "}.
 */
public final class JsonBody {
  private static final ObjectReader STRICT = new ObjectMapper(JsonFactory.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build())
      .reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private JsonBody() {}

  /**
   * Parses {@code text} strictly.
   *
   * @return the value, or null when {@code text} is not one well-formed JSON value
   */
  public static JsonNode parseOrNull(String text) {
    try {
      return STRICT.readTree(text);
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * Parses {@code body} strictly, as UTF-8: a byte sequence that is not UTF-8 is not JSON (Jackson's
   * byte parser refuses it, where decoding to a String first would put U+FFFD in its place).
   *
   * @return the value, or null when {@code body} is not one well-formed JSON value
   */
  public static JsonNode parseOrNull(byte[] body) {
    try {
      return STRICT.readTree(body);
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * The request's body as a JSON object whose every field is one of {@code fields}.
   *
   * @param noun what the body is, for messages ("hold", "protection")
   * @throws IllegalArgumentException (400) not JSON, not an object, or an unknown field
   */
  public static JsonNode object(Context ctx, String noun, Set<String> fields) {
    JsonNode body;
    try {
      body = STRICT.readTree(RequestBody.read(ctx));
    } catch (IOException e) {
      throw new IllegalArgumentException("Invalid " + noun + ": the body is not JSON");
    }
    if (body == null || !body.isObject()) {
      throw new IllegalArgumentException("Invalid " + noun + ": expected a JSON object");
    }
    for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!fields.contains(f)) {
        throw new IllegalArgumentException("Invalid " + noun + ": unknown field '" + f + "'");
      }
    }
    return body;
  }

  /**
   * The string field {@code field} of {@code body}; null when absent or JSON null and not required.
   *
   * @throws IllegalArgumentException (400) required and absent, or not a string
   */
  public static String text(JsonNode body, String field, boolean required, String noun) {
    JsonNode n = body.get(field);
    if (n == null || n.isNull()) {
      if (required) {
        throw new IllegalArgumentException("Invalid " + noun + ": " + field + " is required");
      }
      return null;
    }
    if (!n.isTextual()) {
      throw new IllegalArgumentException("Invalid " + noun + ": " + field + " must be a string");
    }
    return n.asText();
  }
}
