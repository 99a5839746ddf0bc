package dev.lethe.store.core;

/**
 * A set of keys for listing: everything, one namespace, or one collection of a namespace.
 *
 * @param namespace the namespace, or null for every namespace
 * @param collection the collection, or null for every collection; must be null when
 *     {@code namespace} is null
 */
public record KeyPrefix(String namespace, String collection) {

  /**
   * @throws IllegalArgumentException if a part is invalid or a collection is given without a
   *     namespace
   */
  public KeyPrefix {
    if (namespace != null) {
      RecordKey.checkPart("namespace", namespace);
    }
    if (collection != null) {
      if (namespace == null) {
        throw new IllegalArgumentException("Invalid prefix: a collection needs a namespace");
      }
      RecordKey.checkPart("collection", collection);
    }
  }

  /** Every key of the store. */
  public static KeyPrefix all() {
    return new KeyPrefix(null, null);
  }

  /** Every key of one namespace. */
  public static KeyPrefix namespace(String namespace) {
    return new KeyPrefix(namespace, null);
  }

  /** Every key of one collection. */
  public static KeyPrefix collection(String namespace, String collection) {
    return new KeyPrefix(namespace, collection);
  }

  /** Returns whether {@code key} lies under this prefix. */
  public boolean matches(RecordKey key) {
    return (namespace == null || namespace.equals(key.namespace()))
        && (collection == null || collection.equals(key.collection()));
  }

  @Override
  public String toString() {
    if (namespace == null) {
      return "*";
    }
    return collection == null ? namespace + "/*" : namespace + "/" + collection + "/*";
  }
}
