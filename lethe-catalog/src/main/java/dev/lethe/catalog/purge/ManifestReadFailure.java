package dev.lethe.catalog.purge;

/**
 * A manifest whose entries could not be read while streaming data and delete files. The data
 * and delete files it names are not deleted (they may become orphans), but the manifest itself
 * is still deleted in {@link PurgePhase#MANIFESTS}, as Iceberg's synchronous purge does.
 *
 * @param manifestPath location of the manifest, never null
 * @param notFound true when the manifest does not exist (for example removed by an earlier,
 *     interrupted purge of the same table)
 * @param reason the exception's message, never null
 */
public record ManifestReadFailure(String manifestPath, boolean notFound, String reason) {}
