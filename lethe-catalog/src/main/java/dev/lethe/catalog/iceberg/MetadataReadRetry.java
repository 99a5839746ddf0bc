package dev.lethe.catalog.iceberg;

import dev.lethe.catalog.io.UnreadableMetadataException;
import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.UncheckedIOException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.exceptions.RuntimeIOException;

/**
 * Which failures to read a table or view metadata file are worth retrying (
 * docs/design/0003-purge-sweep-and-kept-files.md §4). Iceberg's {@code refreshFromMetadataLocation}
 * retries every failure but "not found" 20 times with a backoff up to 5 s — about 90 s on a request
 * thread for a file that will never parse. Only a plain I/O failure (a store that may come back) is
 * retried; a parse failure (truncated or non-JSON content, JSON that is not metadata, a gzip file
 * that does not decompress or ends early) and a missing file fail at once.
 */
final class MetadataReadRetry {
  private MetadataReadRetry() {}

  /**
   * Runs the read of an entry's current metadata file.
   *
   * @param kind {@code table} or {@code view}
   * @throws UnreadableMetadataException naming the entry and file, for any failure to read the file
   * @throws org.apache.iceberg.exceptions.ValidationException if the file read belongs to another
   *     table or view (Iceberg's UUID check)
   * @throws dev.lethe.catalog.location.InvalidLocationException if confinement refused the read (400)
   * @throws org.apache.iceberg.exceptions.NotFoundException if the file does not exist (404, naming it)
   */
  static void readCurrent(String kind, org.apache.iceberg.catalog.TableIdentifier entity, String location, Runnable read) {
    try {
      read.run();
    } catch (org.apache.iceberg.exceptions.ValidationException | org.apache.iceberg.exceptions.NoSuchTableException
        | org.apache.iceberg.exceptions.NoSuchViewException | org.apache.iceberg.exceptions.NotFoundException
        | dev.lethe.catalog.location.InvalidLocationException e) {
      // a replaced entry (another table UUID), a vanished one, a missing file (the REST compatibility
      // kit requires NotFoundException), or a read the confinement refused: each keeps its own answer
      throw e;
    } catch (RuntimeException e) {
      throw new UnreadableMetadataException(kind, entity.toString(), location, e);
    }
  }

  /**
   * @param e the failure of one read of a metadata file, not null
   * @return true only for an I/O failure whose cause is not a JSON parse error
   */
  static boolean shouldRetry(Exception e) {
    if (e instanceof NotFoundException) {
      return false;
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      // content that cannot be parsed or decompressed, or ends early, reads the same way again
      if (t instanceof JsonProcessingException || t instanceof java.util.zip.ZipException || t instanceof java.io.EOFException) {
        return false;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return e instanceof RuntimeIOException || e instanceof UncheckedIOException;
  }
}
