package dev.lethe.cli.store;

/** Bad command-line input: exit 2 with the message as one line on stderr, nothing changed. */
final class UsageException extends RuntimeException {
  UsageException(String message) {
    super(message);
  }
}
