package dev.lethe.catalog.io;

/**
 * The current metadata file of a catalog entry cannot be read: it is not JSON, is truncated, does
 * not decompress, or is JSON that is not table or view metadata (a missing file stays Iceberg's
 * {@code NotFoundException}). The server's storage failed, not the
 * caller's request: the HTTP edge answers 500 with this type and message
 * (docs/design/0216-unreadable-metadata.md).
 */
public final class UnreadableMetadataException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * @param kind {@code table} or {@code view}
   * @param entity the entry's identifier, as printed
   * @param metadataLocation the file that failed, never null
   * @param cause the read's failure, never null
   */
  public UnreadableMetadataException(String kind, String entity, String metadataLocation, RuntimeException cause) {
    super("Cannot read the current metadata file of " + kind + " " + entity + ": " + metadataLocation + ": "
        + reason(cause), cause);
  }

  private static String reason(Throwable cause) {
    Throwable root = cause;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
