package dev.lethe.server.management;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a caller who is not an admin reads of a cleanup job's {@code lastError}
 * (docs/design/0424-what-a-reader-sees-of-paths.md). Pure: the stored text is never changed.
 */
public final class LastErrorRedaction {
  /** Stands for the job's table root in a redacted text. */
  public static final String TABLE = "<table>";
  /** Replaces an absolute path outside the job's table root. */
  public static final String OUTSIDE = "<path outside the table>";

  // an absolute path, optionally with a scheme (file:/x, file:///x, s3://b/x), not inside a word;
  // a trailing '.', ':' or ',' ends the sentence, not the path
  private static final Pattern PATH = Pattern.compile(
      "(?<![\\w.:/])(?:[A-Za-z][A-Za-z0-9+.-]*:(?://)?)?/[^\\s'\"(),;\\[\\]<>]*[^\\s'\"(),;\\[\\]<>.:]");

  private LastErrorRedaction() {}

  /**
   * Rewrites every absolute path of {@code text}: one under the table root becomes {@code
   * <table>/rest/of/path} ({@code <table>} for the root itself), any other {@link #OUTSIDE}.
   *
   * @param text the stored {@code lastError}; null gives null
   * @param metadataLocation the job's metadata file (its table root is the parent of its directory
   *     when that directory is {@code metadata}, else the directory); null: every path is outside
   * @return the text with no absolute path left, or null
   */
  public static String forReader(String text, String metadataLocation) {
    if (text == null) {
      return null;
    }
    String root = root(metadataLocation);
    Matcher m = PATH.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String path = local(m.group());
      String shown;
      if (root != null && path.equals(root)) {
        shown = TABLE;
      } else if (root != null && path.startsWith(root + "/")) {
        shown = TABLE + path.substring(root.length());
      } else {
        shown = OUTSIDE;
      }
      m.appendReplacement(out, Matcher.quoteReplacement(shown));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** The table root of a job's metadata file, in the spelling of {@link #local}; null if none. */
  static String root(String metadataLocation) {
    if (metadataLocation == null) {
      return null;
    }
    String file = local(metadataLocation);
    int slash = file.lastIndexOf('/');
    if (slash <= 0) {
      return null;
    }
    String directory = file.substring(0, slash);
    int up = directory.lastIndexOf('/');
    if (up > 0 && directory.substring(up + 1).equals("metadata")) {
      return directory.substring(0, up);
    }
    return directory;
  }

  /** {@code file:/x} and {@code file:///x} spelled {@code /x}; other schemes kept; no trailing slash. */
  private static String local(String location) {
    String p = location;
    if (p.startsWith("file://")) {
      p = p.substring("file://".length());
    } else if (p.startsWith("file:")) {
      p = p.substring("file:".length());
    }
    while (p.length() > 1 && p.endsWith("/")) {
      p = p.substring(0, p.length() - 1);
    }
    return p;
  }
}
