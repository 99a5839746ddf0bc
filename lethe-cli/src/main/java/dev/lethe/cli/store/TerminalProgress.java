package dev.lethe.cli.store;

import dev.lethe.store.core.progress.Progress;
import java.io.PrintWriter;

/**
 * A one-line progress bar on stderr, shown only when the process runs on a terminal; piped runs
 * stay quiet so scripts see only the report.
 */
final class TerminalProgress implements Progress, AutoCloseable {

  private static final int WIDTH = 30;

  private final PrintWriter err;
  private final String label;
  private final boolean enabled;
  private long lastPercent = -1;
  private boolean drawn;

  /**
   * @param err where the bar is drawn
   * @param label what is running, e.g. {@code reset}
   * @param enabled whether to draw (true on a terminal)
   */
  TerminalProgress(PrintWriter err, String label, boolean enabled) {
    this.err = err;
    this.label = label;
    this.enabled = enabled;
  }

  /** A bar enabled when both stdin/stdout are a console. */
  static TerminalProgress forConsole(PrintWriter err, String label) {
    return new TerminalProgress(err, label, System.console() != null);
  }

  @Override
  public void update(long done, long total) {
    if (!enabled) {
      return;
    }
    if (total <= 0) {
      // total unknown: a count, redrawn every 1000 keys
      if (done % 1000 == 0) {
        err.print("\r" + label + " " + done + " keys");
        err.flush();
        drawn = true;
      }
      return;
    }
    long percent = done * 100 / total;
    if (percent == lastPercent) {
      return;
    }
    lastPercent = percent;
    int filled = (int) (done * WIDTH / total);
    err.print("\r" + label + " [" + "#".repeat(filled) + " ".repeat(WIDTH - filled) + "] "
        + done + "/" + total);
    err.flush();
    drawn = true;
  }

  @Override
  public void close() {
    if (drawn) {
      err.println();
      err.flush();
    }
  }
}
