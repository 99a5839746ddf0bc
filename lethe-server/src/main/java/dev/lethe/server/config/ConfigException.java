package dev.lethe.server.config;

/** A configuration value that cannot be used; the message names the key and the problem. */
public final class ConfigException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** @param message names the key, e.g. {@code "Invalid lethe.server.port: not a number: x"} */
  public ConfigException(String message) {
    super(message);
  }
}
