package dev.lethe.server.auth;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.lethe.store.core.RecordKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads and validates the auth file named by {@code lethe.auth.file} (format in
 * {@code docs/auth.md}).
 *
 * <p>The format follows the extension: {@code .yaml}/{@code .yml} is YAML, {@code .json} is
 * JSON. Both hold the same document (the hashes below are those of the example tokens {@code
 * analyst-token} and {@code admin-token}):
 *
 * <pre>{@code
 * principals:
 *   - name: analyst
 *     token-sha256: 06ff3913469cdb533bd93c0701fee774bbf18c48e01cdfc413a17b69dbea0764
 *     read: [main]
 *     write: []
 *   - name: admin
 *     token-sha256: 10a4c7c9fc5206d6f36dc6944a81bb6f4a3cb0e25014ae3b12e6c3e52712292a
 *     read: ["*"]
 *     write: ["*"]
 * }</pre>
 *
 * <p>Every problem fails the load with an {@link InvalidAuthFileException} whose message names
 * the file and the bad entry; a file is used whole or not at all. Unknown keys are errors (a typo
 * must not silently drop a restriction), and so is a clear {@code token} key.
 */
public final class AuthFileLoader {
  private static final Set<String> PRINCIPAL_KEYS = Set.of("name", "token-sha256", "read", "write", "store");
  private static final Set<String> STORE_KEYS = Set.of("read", "write");

  /** Creates a loader. */
  public AuthFileLoader() {}

  /**
   * Loads and validates an auth file.
   *
   * @param file path of a {@code .yaml}, {@code .yml} or {@code .json} file, not null
   * @return the principals
   * @throws InvalidAuthFileException if the file is missing, unreadable, of another extension,
   *     not parsable, or any entry is invalid; the message names the file and the entry
   */
  public AuthFile load(Path file) {
    ObjectMapper mapper = mapperFor(file);
    JsonNode root;
    try {
      root = mapper.readTree(Files.readAllBytes(file));
    } catch (NoSuchFileException e) {
      throw invalid(file, "file does not exist");
    } catch (JsonProcessingException e) {
      // only the first line: YAML parsers append a snippet of the offending line, which could
      // hold a secret someone pasted into the file
      throw invalid(file, "cannot parse: " + firstLine(e.getOriginalMessage()) + locationOf(e));
    } catch (IOException e) {
      throw invalid(file, "cannot read: " + e.getMessage());
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      throw invalid(file, "file is empty; expected a 'principals' list");
    }
    if (!root.isObject()) {
      throw invalid(file, "expected an object with a 'principals' list at the top level");
    }
    for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!key.equals("principals")) {
        throw invalid(file, "unknown top-level key '" + key + "'; expected only 'principals'");
      }
    }
    JsonNode list = root.get("principals");
    if (list == null || !list.isArray()) {
      throw invalid(file, "'principals' must be a list");
    }
    if (list.isEmpty()) {
      throw invalid(file, "'principals' is empty; with no principal every request would be refused");
    }
    List<PrincipalEntry> entries = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      entries.add(entry(file, i + 1, list.get(i)));
    }
    try {
      return new AuthFile(file, entries);
    } catch (IllegalArgumentException e) {
      throw new InvalidAuthFileException(e.getMessage());
    }
  }

  private static PrincipalEntry entry(Path file, int position, JsonNode node) {
    String where = "principal #" + position;
    if (!node.isObject()) {
      throw invalid(file, where + " must be an object with name, token-sha256, read and write");
    }
    JsonNode nameNode = node.get("name");
    if (nameNode != null && nameNode.isTextual() && !nameNode.asText().isBlank()) {
      where = where + " ('" + nameNode.asText() + "')";
    }
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (key.equals("token")) {
        throw invalid(file, where + ": clear tokens are not accepted; store token-sha256 instead");
      }
      if (!PRINCIPAL_KEYS.contains(key)) {
        throw invalid(file, where + ": unknown key '" + key + "'; expected name, token-sha256, read, write, store");
      }
    }
    if (nameNode == null || !nameNode.isTextual() || nameNode.asText().isBlank()) {
      throw invalid(file, where + ": 'name' must be a non-empty string");
    }
    String name = nameNode.asText();
    JsonNode hashNode = node.get("token-sha256");
    if (hashNode == null || hashNode.isNull()) {
      throw invalid(file, where + ": 'token-sha256' is missing");
    }
    // a YAML scalar of digits only parses as a number; its text is still the hex digest
    if (!hashNode.isValueNode() || !TokenHash.isSha256Hex(hashNode.asText())) {
      throw invalid(
          file,
          where + ": 'token-sha256' must be 64 lower-case hex characters (the SHA-256 of the token)");
    }
    Set<String> read = catalogs(file, where, node, "read");
    Set<String> write = catalogs(file, where, node, "write");
    JsonNode store = node.get("store");
    if (store == null) {
      return new PrincipalEntry(new Principal(name, read, write), hashNode.asText());
    }
    Set<String> storeRead = Set.of();
    Set<String> storeWrite = Set.of();
    if (!store.isNull()) {
      if (!store.isObject()) {
        throw invalid(file, where + ": 'store' must be an object with 'read' and 'write' lists of namespaces");
      }
      for (Iterator<String> it = store.fieldNames(); it.hasNext(); ) {
        String key = it.next();
        if (!STORE_KEYS.contains(key)) {
          throw invalid(file, where + ": unknown key 'store." + key + "'; expected store.read, store.write");
        }
      }
      storeRead = namespaces(file, where, store, "read");
      storeWrite = namespaces(file, where, store, "write");
    }
    // a write is answered with the stored record on a conflict (409), so a writer reads anyway
    for (String ns : storeWrite) {
      if (!storeRead.contains(Principal.ANY_CATALOG) && !storeRead.contains(ns)) {
        throw invalid(file, where + ": 'store.write' grants " + (ns.equals(Principal.ANY_CATALOG) ? "\"*\"" : "'" + ns + "'")
            + " but 'store.read' does not; a writer sees the stored record in every conflict, so list it in store.read too");
      }
    }
    return new PrincipalEntry(new Principal(name, read, write, storeRead, storeWrite), hashNode.asText());
  }

  private static Set<String> namespaces(Path file, String where, JsonNode store, String key) {
    JsonNode list = store.get(key);
    if (list == null || list.isNull()) {
      return Set.of();
    }
    if (!list.isArray()) {
      throw invalid(file, where + ": 'store." + key + "' must be a list of store namespaces or \"*\"");
    }
    Set<String> namespaces = new LinkedHashSet<>();
    for (JsonNode item : list) {
      if (!item.isTextual()
          || !(item.asText().equals(Principal.ANY_CATALOG) || RecordKey.isValidPart(item.asText()))) {
        throw invalid(file, where + ": 'store." + key + "' entries must be store namespaces ([A-Za-z0-9._-], "
            + "not . or ..) or \"*\", got " + item);
      }
      namespaces.add(item.asText());
    }
    return namespaces;
  }

  private static Set<String> catalogs(Path file, String where, JsonNode node, String key) {
    JsonNode list = node.get(key);
    if (list == null || list.isNull()) {
      return Set.of();
    }
    if (!list.isArray()) {
      throw invalid(file, where + ": '" + key + "' must be a list of catalog names or \"*\"");
    }
    Set<String> catalogs = new LinkedHashSet<>();
    for (JsonNode item : list) {
      if (!item.isTextual() || item.asText().isBlank() || !item.asText().strip().equals(item.asText())) {
        throw invalid(
            file, where + ": '" + key + "' entries must be non-empty catalog names or \"*\", got " + item);
      }
      catalogs.add(item.asText());
    }
    return catalogs;
  }

  private static ObjectMapper mapperFor(Path file) {
    String name = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
    JsonFactory factory;
    if (name.endsWith(".yaml") || name.endsWith(".yml")) {
      factory = new YAMLFactory();
    } else if (name.endsWith(".json")) {
      factory = new JsonFactory();
    } else {
      throw invalid(file, "unsupported extension; use .yaml, .yml or .json");
    }
    // a repeated key would silently override an earlier one
    factory.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    return new ObjectMapper(factory);
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "malformed document";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  private static String locationOf(JsonProcessingException e) {
    return e.getLocation() == null
        ? ""
        : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")";
  }

  private static InvalidAuthFileException invalid(Path file, String problem) {
    return new InvalidAuthFileException("Invalid auth file " + file + ": " + problem);
  }
}
