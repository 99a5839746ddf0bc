package dev.lethe.catalog.location;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A location (a file or a directory) in its one normalised spelling: {@code (scheme, authority,
 * path)}. Every path the catalog writes, compares or deletes goes through {@link #parse} first
 * (docs/design/0001-purge-confinement-and-ownership.md §1), so {@code /wh/t}, {@code file:/wh/t},
 * {@code file:///wh/t} and {@code file://localhost/wh/t} are one location and no spelling can walk
 * around a rule that compares locations.
 *
 * <ul>
 *   <li>{@code scheme}: lower case; {@code file} for absolute paths and {@code file:} URIs; {@code
 *       s3} for {@code s3}, {@code s3a} and {@code s3n} (one bucket namespace); any other scheme
 *       as written, lower-cased.
 *   <li>{@code authority}: empty for {@code file}; the bucket (or host) otherwise, never empty.
 *   <li>{@code path}: absolute, {@code /}-separated, no empty, {@code .} or {@code ..} segment, no
 *       trailing {@code /} except the root {@code /}. Characters are literal: {@code %20} is
 *       three characters, as Hadoop's {@code Path} reads it.
 * </ul>
 *
 * <p>Immutable; equality is equality of the three parts.
 */
public final class LocationPath {
  /** Longest location accepted, in characters. */
  public static final int MAX_LENGTH = 4096;

  private static final Pattern SCHEME = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]*):(.*)$", Pattern.DOTALL);
  private static final Pattern BUCKET = Pattern.compile("[A-Za-z0-9._-]+");

  private final String scheme;
  private final String authority;
  private final String path;

  private LocationPath(String scheme, String authority, String path) {
    this.scheme = scheme;
    this.authority = authority;
    this.path = path;
  }

  /**
   * Parses and normalises a location.
   *
   * @param location as written by a client or an operator; may be null
   * @return the normalised location, never null
   * @throws InvalidLocationException if the location is null, empty, longer than {@link
   *     #MAX_LENGTH}, relative, carries a query {@code ?} or a fragment {@code #}, a {@code .} or
   *     {@code ..} segment, a {@code file:} authority other than empty or {@code localhost}, no
   *     authority where the scheme needs one, an empty segment inside an object-store key, a
   *     control character, a backslash or invalid UTF-16; the message names the location and the
   *     reason
   */
  public static LocationPath parse(String location) {
    if (location == null || location.isEmpty()) {
      throw new InvalidLocationException(location, "location is empty");
    }
    if (location.length() > MAX_LENGTH) {
      throw new InvalidLocationException(location, "longer than " + MAX_LENGTH + " characters");
    }
    checkCharacters(location);
    if (location.startsWith("/")) {
      return new LocationPath("file", "", normalisePath(location, location, true));
    }
    Matcher m = SCHEME.matcher(location);
    if (!m.matches()) {
      throw new InvalidLocationException(location, "relative path (expected an absolute path or scheme:/…)");
    }
    String scheme = m.group(1).toLowerCase(Locale.ROOT);
    String rest = m.group(2);
    if (scheme.equals("file")) {
      String rawPath;
      if (rest.startsWith("//")) {
        int slash = rest.indexOf('/', 2);
        String authority = slash < 0 ? rest.substring(2) : rest.substring(2, slash);
        if (!authority.isEmpty() && !authority.equalsIgnoreCase("localhost")) {
          throw new InvalidLocationException(location, "file: authority '" + authority + "' is not this machine");
        }
        rawPath = slash < 0 ? "" : rest.substring(slash);
      } else {
        rawPath = rest;
      }
      if (!rawPath.startsWith("/")) {
        throw new InvalidLocationException(location, "relative file: path");
      }
      return new LocationPath("file", "", normalisePath(location, rawPath, true));
    }
    if (!rest.startsWith("//")) {
      throw new InvalidLocationException(location, "expected " + scheme + "://authority/path");
    }
    int slash = rest.indexOf('/', 2);
    String authority = slash < 0 ? rest.substring(2) : rest.substring(2, slash);
    if (authority.isEmpty()) {
      throw new InvalidLocationException(location, "no bucket or host after " + scheme + "://");
    }
    if (scheme.equals("s3") || scheme.equals("s3a") || scheme.equals("s3n")) {
      if (!BUCKET.matcher(authority).matches()) {
        throw new InvalidLocationException(location, "invalid bucket name '" + authority + "'");
      }
      scheme = "s3";
    } else if (authority.indexOf('@') >= 0 && authority.indexOf('@') != authority.lastIndexOf('@')) {
      throw new InvalidLocationException(location, "invalid authority '" + authority + "'");
    }
    String rawPath = slash < 0 ? "/" : rest.substring(slash);
    return new LocationPath(scheme, authority, normalisePath(location, rawPath, false));
  }

  /**
   * {@link #parse}, without the exception.
   *
   * @param location any string, may be null
   * @return the normalised location, or empty if {@link #parse} would refuse it
   */
  public static Optional<LocationPath> tryParse(String location) {
    try {
      return Optional.of(parse(location));
    } catch (InvalidLocationException e) {
      return Optional.empty();
    }
  }

  private static void checkCharacters(String location) {
    for (int i = 0; i < location.length(); i++) {
      char c = location.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        throw new InvalidLocationException(location, "control character U+" + String.format("%04X", (int) c) + " at " + i);
      }
      if (c == '?' || c == '#') {
        throw new InvalidLocationException(location, "'" + c + "' at " + i
            + " (a URI parser would take the rest as a query or fragment and act on another file)");
      }
      if (c == '\\') {
        throw new InvalidLocationException(location, "backslash at " + i);
      }
      if (Character.isHighSurrogate(c)) {
        if (i + 1 >= location.length() || !Character.isLowSurrogate(location.charAt(i + 1))) {
          throw new InvalidLocationException(location, "unpaired UTF-16 surrogate at " + i);
        }
        i++;
      } else if (Character.isLowSurrogate(c)) {
        throw new InvalidLocationException(location, "unpaired UTF-16 surrogate at " + i);
      }
    }
  }

  /**
   * @param collapseEmpty true on a file system, where {@code a//b} is {@code a/b}; false in an
   *     object store key, where an empty segment names a different object
   */
  private static String normalisePath(String location, String raw, boolean collapseEmpty) {
    String[] segments = raw.split("/", -1);
    StringBuilder out = new StringBuilder(raw.length());
    // segments[0] is the empty string before the leading '/'
    for (int i = 1; i < segments.length; i++) {
      String s = segments[i];
      if (s.isEmpty()) {
        boolean trailing = i == segments.length - 1;
        if (collapseEmpty || trailing) {
          continue;
        }
        throw new InvalidLocationException(location, "empty path segment ('//') in an object store key");
      }
      if (s.equals(".") || s.equals("..")) {
        throw new InvalidLocationException(location, "'" + s + "' segment");
      }
      out.append('/').append(s);
    }
    return out.length() == 0 ? "/" : out.toString();
  }

  /** {@code file}, {@code s3}, or another scheme in lower case. */
  public String scheme() {
    return scheme;
  }

  /** Empty for {@code file}; the bucket or host otherwise. */
  public String authority() {
    return authority;
  }

  /** The absolute normalised path, {@code /} for a root. */
  public String path() {
    return path;
  }

  /** Whether this is a local file system location. */
  public boolean isFile() {
    return scheme.equals("file");
  }

  /** Whether this is the root of its file system or bucket. */
  public boolean isRoot() {
    return path.equals("/");
  }

  /**
   * Whether {@code other} is this location or lies under it.
   *
   * @param other not null
   */
  public boolean contains(LocationPath other) {
    if (!scheme.equals(other.scheme) || !authority.equals(other.authority)) {
      return false;
    }
    return isRoot() || other.path.equals(path)
        || (other.path.length() > path.length() && other.path.startsWith(path) && other.path.charAt(path.length()) == '/');
  }

  /** Whether one of the two contains the other. */
  public boolean overlaps(LocationPath other) {
    return contains(other) || other.contains(this);
  }

  /** The parent directory, or empty for a root. */
  public Optional<LocationPath> parent() {
    if (isRoot()) {
      return Optional.empty();
    }
    int slash = path.lastIndexOf('/');
    return Optional.of(new LocationPath(scheme, authority, slash == 0 ? "/" : path.substring(0, slash)));
  }

  /**
   * This location and every ancestor up to the root, root first (for example {@code /}, {@code
   * /wh}, {@code /wh/t} for {@code /wh/t}).
   */
  public List<LocationPath> selfAndAncestors() {
    List<LocationPath> out = new ArrayList<>();
    for (LocationPath p = this; p != null; p = p.parent().orElse(null)) {
      out.add(0, p);
    }
    return out;
  }

  /**
   * A child of this directory.
   *
   * @param name one segment: not empty, no {@code /}, not {@code .} or {@code ..}
   * @throws InvalidLocationException if the name is not one valid segment
   */
  public LocationPath resolve(String name) {
    if (name == null || name.isEmpty() || name.contains("/")) {
      throw new InvalidLocationException(toString() + "/" + name, "not one path segment: '" + name + "'");
    }
    return parse(toString() + (isRoot() && isFile() ? "" : "/") + name);
  }

  /**
   * The canonical string: the bare absolute path for {@code file} (what every FileIO reads
   * literally), {@code scheme://authority/path} otherwise ({@code scheme://authority} for a
   * bucket root).
   */
  @Override
  public String toString() {
    if (isFile()) {
      return path;
    }
    return scheme + "://" + authority + (isRoot() ? "" : path);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LocationPath other
        && scheme.equals(other.scheme) && authority.equals(other.authority) && path.equals(other.path);
  }

  @Override
  public int hashCode() {
    return Objects.hash(scheme, authority, path);
  }
}
