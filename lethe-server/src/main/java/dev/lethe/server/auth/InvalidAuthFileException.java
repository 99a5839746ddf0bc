package dev.lethe.server.auth;

/**
 * The auth file cannot be used; the server must not start. The message names the file and the
 * bad entry and never contains a token or a token hash.
 */
public final class InvalidAuthFileException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception with a complete message. */
  public InvalidAuthFileException(String message) {
    super(message);
  }
}
