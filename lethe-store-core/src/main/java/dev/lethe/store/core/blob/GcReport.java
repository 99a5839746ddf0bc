package dev.lethe.store.core.blob;

/**
 * What a blob gc did.
 *
 * @param swept blobs removed
 * @param referenced blobs kept because a raw record references them
 * @param young unreferenced blobs kept because they are younger than the grace (including one
 *     re-stored by a writer while gc ran)
 */
public record GcReport(int swept, int referenced, int young) {}
