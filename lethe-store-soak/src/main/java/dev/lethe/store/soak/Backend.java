package dev.lethe.store.soak;

import java.util.Locale;

/** The one store every replica of a soak serves. */
public enum Backend {
  /** a {@code file:} root in the run's work directory */
  FILE,
  /** a {@code jdbc:postgresql:} store at {@code --jdbc-url} */
  POSTGRESQL,
  /** an {@code s3://bucket/prefix} store on a test S3 server at {@code --s3-endpoint} */
  S3;

  /**
   * Parses a backend name as typed ({@code file}, {@code postgresql}, {@code s3}).
   *
   * @throws IllegalArgumentException naming the value and the choices
   */
  public static Backend parse(String text) {
    for (Backend b : values()) {
      if (b.name().toLowerCase(Locale.ROOT).equals(text)) {
        return b;
      }
    }
    throw new IllegalArgumentException("Invalid --backend '" + text + "': expected file, postgresql or s3");
  }
}
