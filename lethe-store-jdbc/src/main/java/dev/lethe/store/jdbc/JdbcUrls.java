package dev.lethe.store.jdbc;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Prints a JDBC URL without its credentials, for messages and logs. */
public final class JdbcUrls {
  private static final Pattern PASSWORD = Pattern.compile("(?i)password=([^&;]*)");
  private static final Pattern USER_INFO = Pattern.compile("//([^/@?;]*):([^/@?;]*)@");
  // in a message a URL ends at whitespace: without it, "password=***" would swallow the rest of
  // the message ("…password=s3cret: Connection refused" lost the cause)
  private static final Pattern PASSWORD_IN_TEXT = Pattern.compile("(?i)(password=)(?!\\*\\*\\*)[^&;\\s]*");
  private static final Pattern USER_INFO_IN_TEXT = Pattern.compile("//[^/@?;\\s]*:[^/@?;\\s]*@");

  private JdbcUrls() {}

  /**
   * Returns {@code url} with every password value ({@code password=…} in a query, {@code
   * ;PASSWORD=…} in H2 settings) and any {@code user:password@} part replaced by {@code ***}.
   */
  public static String redact(String url) {
    if (url == null) {
      return "null";
    }
    return url.replaceAll("(?i)(password=)[^&;]*", "$1***")
        .replaceAll("//[^/@?;]*:[^/@?;]*@", "//***@");
  }

  /**
   * Returns {@code text} (a driver's or pool's message about {@code url}) as {@link #redact} does,
   * and with every password {@code url} carries replaced by {@code ***} wherever it appears: a
   * driver that cannot parse a URL may quote any piece of it (MariaDB's "Incorrect port value :
   * &lt;password&gt;@host" for {@code jdbc:mariadb://user:password@host/db}).
   */
  public static String redact(String text, String url) {
    if (text == null) {
      return "null";
    }
    String out = text;
    for (String secret : secrets(url)) {
      out = out.replace(secret, "***");
    }
    out = PASSWORD_IN_TEXT.matcher(out).replaceAll("$1***");
    return USER_INFO_IN_TEXT.matcher(out).replaceAll("//***@");
  }

  private static Set<String> secrets(String url) {
    Set<String> out = new LinkedHashSet<>();
    if (url == null) {
      return out;
    }
    Matcher m = PASSWORD.matcher(url);
    while (m.find()) {
      out.add(m.group(1));
    }
    Matcher u = USER_INFO.matcher(url);
    while (u.find()) {
      out.add(u.group(2));
    }
    Set<String> decoded = new LinkedHashSet<>();
    for (String s : out) {
      try {
        decoded.add(URLDecoder.decode(s, StandardCharsets.UTF_8));
      } catch (IllegalArgumentException notEncoded) {
        // only the raw spelling can appear
      }
    }
    out.addAll(decoded);
    out.remove("");
    out.remove("***");
    return out;
  }
}
