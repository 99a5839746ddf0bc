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
 * @param refused true when the read was refused because the manifest is reached through a symbolic
 *     link (docs/design/0007-no-symbolic-link-below-the-warehouse.md): retrying cannot help
 */
public record ManifestReadFailure(String manifestPath, boolean notFound, String reason, boolean refused) {
  /** A failure that is not a refusal. */
  public ManifestReadFailure(String manifestPath, boolean notFound, String reason) {
    this(manifestPath, notFound, reason, false);
  }
}
