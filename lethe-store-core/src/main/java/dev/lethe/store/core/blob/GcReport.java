package dev.lethe.store.core.blob;

/**
 * What a blob gc did.
 *
 * @param swept blobs removed
 * @param referenced blobs kept because a raw record references them
 * @param young unreferenced blobs kept because they are younger than the grace
 */
public record GcReport(int swept, int referenced, int young) {}
