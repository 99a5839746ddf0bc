package dev.lethe.store.core.substrate;

/**
 * A store URI that cannot be opened: malformed, of an unknown scheme, or naming something
 * unusable. Nothing was opened.
 *
 * <p>{@link #detail()} is the message without the name of the option or key that held the URI:
 * it follows that name directly ({@code "--store" + detail()}), so it starts with {@code ": "}
 * or {@code " '<uri>': "}.
 */
public final class BadStoreUriException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String detail;

  /** @param detail the text after the option name, starting with {@code ": "} or {@code " '"} */
  public BadStoreUriException(String detail) {
    super("store URI" + detail);
    this.detail = detail;
  }

  /** The message after the option name. */
  public String detail() {
    return detail;
  }
}
