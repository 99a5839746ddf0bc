package dev.lethe.server.http;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.catalog.iceberg.WellFormedText;
import java.util.Map;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import java.io.IOException;
import org.apache.iceberg.rest.RESTSerializers;

/**
 * JSON of the Iceberg REST models: a Jackson mapper configured like Iceberg's own (package-private)
 * {@code RESTObjectMapper}: field visibility ANY, unknown properties ignored, kebab-case names, and
 * Iceberg's serializers registered with {@link RESTSerializers#registerAll}.
 *
 * <p>Reading is strict (docs/design/0400-strict-request-input.md): a body is exactly one JSON value,
 * with no duplicate key in any object and no unpaired UTF-16 surrogate in any key or string; anything
 * else is a 400 naming the problem, before any catalog call.
 */
public final class IcebergJson {
  private final ObjectMapper mapper;
  private final ObjectReader oneValue;

  /** Builds the mapper. */
  public IcebergJson() {
    JsonFactory factory = new JsonFactoryBuilder()
        .configure(JsonFactory.Feature.INTERN_FIELD_NAMES, false)
        .configure(JsonFactory.Feature.FAIL_ON_SYMBOL_HASH_OVERFLOW, false)
        // a repeated key is refused, not resolved to its last value
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .build();
    ObjectMapper m = new ObjectMapper(factory);
    m.setVisibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY);
    m.configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    m.setPropertyNamingStrategy(new PropertyNamingStrategies.KebabCaseStrategy());
    RESTSerializers.registerAll(m);
    this.mapper = m;
    this.oneValue = m.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  }

  /**
   * Parses a request body.
   *
   * @throws BadRequestBodyException if the body is empty, not JSON, or not a valid {@code type}
   */
  public <T> T read(byte[] body, Class<T> type) {
    if (body == null || body.length == 0) {
      throw new BadRequestBodyException("Invalid request body: empty, expected a JSON " + type.getSimpleName());
    }
    try {
      // the tree is read first to check the whole body, whatever parts the model's parser skips
      checkWellFormed(readOneValue(body), "$");
      T value = mapper.readValue(body, type);
      if (value == null) {
        throw new BadRequestBodyException("Invalid request body: null, expected a JSON " + type.getSimpleName());
      }
      return value;
    } catch (BadRequestBodyException e) {
      throw e;
    } catch (JsonProcessingException e) {
      throw new BadRequestBodyException("Invalid request body: malformed JSON for " + type.getSimpleName() + ": " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new BadRequestBodyException("Invalid request body: " + e.getMessage());
    } catch (IllegalArgumentException | NullPointerException | IllegalStateException | UnsupportedOperationException e) {
      // Iceberg's parsers check required fields with Preconditions and may dereference missing ones
      throw new BadRequestBodyException("Invalid request body for " + type.getSimpleName() + ": " + e.getMessage());
    }
  }

  /** The body's one JSON value; anything after it (but whitespace) is refused, by Jackson's FAIL_ON_TRAILING_TOKENS. */
  private JsonNode readOneValue(byte[] body) throws IOException {
    try (JsonParser parser = mapper.createParser(body)) {
      JsonNode tree;
      try {
        tree = oneValue.readTree(parser);
      } catch (MismatchedInputException trailing) {
        throw new BadRequestBodyException("Invalid request body: trailing token " + parser.currentToken() + " after the JSON value"
            + " (a body is exactly one JSON value)");
      }
      if (tree == null || tree.isMissingNode()) {
        throw new BadRequestBodyException("Invalid request body: no JSON value");
      }
      return tree;
    }
  }

  private static void checkWellFormed(JsonNode node, String path) {
    if (node.isTextual()) {
      WellFormedText.check("string at " + path, node.textValue());
    } else if (node.isObject()) {
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        WellFormedText.check("key at " + path, field.getKey());
        checkWellFormed(field.getValue(), path + "." + field.getKey());
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        checkWellFormed(node.get(i), path + "[" + i + "]");
      }
    }
  }

  /** Serialises a response model. */
  public byte[] write(Object value) {
    try {
      return mapper.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot serialise " + value.getClass().getSimpleName(), e);
    }
  }

  /** A request body that cannot be parsed: always a 400. */
  public static final class BadRequestBodyException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    BadRequestBodyException(String message) {
      super(message);
    }
  }
}
