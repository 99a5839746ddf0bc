package dev.lethe.catalog.entity;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.SQLException;
import java.util.Map;
import java.util.TreeMap;

/** Encoding of the columns that are not plain scalars: property maps (JSON objects of strings). */
final class Rows {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<java.util.LinkedHashMap<String, String>> MAP = new TypeReference<>() {};

  private Rows() {}

  static String propertiesToJson(Map<String, String> properties) {
    try {
      return JSON.writeValueAsString(new TreeMap<>(properties));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot encode properties", e);
    }
  }

  static Map<String, String> propertiesFromJson(String json) throws SQLException {
    try {
      return java.util.Collections.unmodifiableMap(JSON.readValue(json, MAP));
    } catch (JsonProcessingException e) {
      throw new SQLException("Cannot decode properties column: " + e.getOriginalMessage(), e);
    }
  }
}
