package dev.lethe.store.core;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** A record's content: bytes held in the record, or a reference to a content-addressed blob. */
public sealed interface Body permits Body.Inline, Body.Blob {

  /** The empty inline body (a tombstone's body). */
  Body EMPTY = new Inline(new byte[0]);

  /** Returns the SHA-256 hex of the content; for a blob, the blob's hash. */
  String contentHash();

  /**
   * Content held in the record.
   *
   * @param bytes the content; copied on construction and on access
   */
  record Inline(byte[] bytes) implements Body {
    public Inline {
      bytes = bytes.clone();
    }

    /** Returns an inline body holding the UTF-8 bytes of {@code text}. */
    public static Inline text(String text) {
      return new Inline(text.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public byte[] bytes() {
      return bytes.clone();
    }

    /** Returns the length in bytes. */
    public int length() {
      return bytes.length;
    }

    /** Decodes the content as UTF-8. */
    public String text() {
      return new String(bytes, StandardCharsets.UTF_8);
    }

    @Override
    public String contentHash() {
      return ContentHash.of(bytes);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Inline other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
      return "Inline[" + bytes.length + " bytes]";
    }
  }

  /**
   * Content stored in the store's blob store.
   *
   * @param hash SHA-256 hex of the content
   * @param length content length in bytes, at least 0
   */
  record Blob(String hash, long length) implements Body {
    public Blob {
      if (!ContentHash.isValid(hash)) {
        throw new IllegalArgumentException("Invalid blob hash '" + hash + "'");
      }
      if (length < 0) {
        throw new IllegalArgumentException("Invalid blob length " + length);
      }
    }

    @Override
    public String contentHash() {
      return hash;
    }
  }
}
