package dev.lethe.server.iceberg;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import java.io.IOException;
import org.apache.iceberg.rest.RESTSerializers;

/**
 * JSON of the Iceberg REST models: a Jackson mapper configured like Iceberg's own (package-private)
 * {@code RESTObjectMapper}: field visibility ANY, unknown properties ignored, kebab-case names, and
 * Iceberg's serializers registered with {@link RESTSerializers#registerAll}.
 */
public final class IcebergJson {
  private final ObjectMapper mapper;

  /** Builds the mapper. */
  public IcebergJson() {
    JsonFactory factory = new JsonFactoryBuilder()
        .configure(JsonFactory.Feature.INTERN_FIELD_NAMES, false)
        .configure(JsonFactory.Feature.FAIL_ON_SYMBOL_HASH_OVERFLOW, false)
        .build();
    ObjectMapper m = new ObjectMapper(factory);
    m.setVisibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY);
    m.configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    m.setPropertyNamingStrategy(new PropertyNamingStrategies.KebabCaseStrategy());
    RESTSerializers.registerAll(m);
    this.mapper = m;
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
