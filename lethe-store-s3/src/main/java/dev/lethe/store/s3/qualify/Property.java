package dev.lethe.store.s3.qualify;

/**
 * One promise the probe checked.
 *
 * @param name e.g. {@code create-if-absent}
 * @param holds whether the server kept it in every round
 * @param detail what was seen, one line
 */
public record Property(String name, boolean holds, String detail) {

  /** Returns {@code name: ok|FAILED (detail)}, the probe's output line. */
  public String line() {
    return name + ": " + (holds ? "ok" : "FAILED") + " (" + detail + ")";
  }
}
