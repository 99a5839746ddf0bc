package dev.lethe.server.http;

/**
 * An answer a handler gives by throwing it: exactly this status, error {@code type} and message,
 * in the request's surface shape ({@link ErrorMapper}). For outcomes the table cannot name from
 * an exception class, such as an unknown metalake (404 {@code NoSuchMetalakeException}).
 */
public final class ApiException extends RuntimeException {
  private final int status;
  private final String type;

  /**
   * @param status the HTTP status, 400..599
   * @param type the error type string clients and docs rely on
   * @param message one line naming the problem
   */
  public ApiException(int status, String type, String message) {
    super(message, null, false, false);
    this.status = status;
    this.type = type;
  }

  /** The HTTP status. */
  public int status() {
    return status;
  }

  /** The error type string. */
  public String type() {
    return type;
  }
}
