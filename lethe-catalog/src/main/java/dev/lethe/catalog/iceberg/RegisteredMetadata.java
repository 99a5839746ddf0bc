package dev.lethe.catalog.iceberg;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.UncheckedIOException;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.view.ViewMetadata;
import org.apache.iceberg.view.ViewMetadataParser;

/**
 * Reads a metadata file a client asks to register. A file that exists but is not JSON, or is JSON
 * but not table (view) metadata, is the client's mistake: an {@link IllegalArgumentException} (400)
 * naming the file, raised before anything is written. A missing file stays {@link
 * NotFoundException} (404); a file that cannot be read for another reason stays a server failure.
 */
final class RegisteredMetadata {
  private RegisteredMetadata() {}

  static TableMetadata readTable(FileIO io, TableIdentifier id, String location) {
    try {
      return TableMetadataParser.read(io.newInputFile(location));
    } catch (NotFoundException e) {
      throw e;
    } catch (UncheckedIOException e) {
      throw notMetadata("Cannot register " + id, location, e);
    } catch (IllegalArgumentException | NullPointerException | IllegalStateException e) {
      // Iceberg's parsers check required fields with Preconditions and may dereference missing ones
      throw new IllegalArgumentException(
          "Cannot register " + id + ": " + location + " is not valid table metadata: " + e.getMessage(), e);
    }
  }

  static ViewMetadata readView(FileIO io, TableIdentifier id, String location) {
    try {
      return ViewMetadataParser.read(io.newInputFile(location));
    } catch (NotFoundException e) {
      throw e;
    } catch (UncheckedIOException e) {
      throw notMetadata("Cannot register view " + id, location, e);
    } catch (IllegalArgumentException | NullPointerException | IllegalStateException e) {
      throw new IllegalArgumentException(
          "Cannot register view " + id + ": " + location + " is not valid view metadata: " + e.getMessage(), e);
    }
  }

  private static RuntimeException notMetadata(String what, String location, UncheckedIOException e) {
    if (e.getCause() instanceof JsonProcessingException json) {
      return new IllegalArgumentException(what + ": " + location + " is not JSON: " + json.getOriginalMessage(), e);
    }
    return e;
  }
}
