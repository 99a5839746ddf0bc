package dev.lethe.cli.store;

import dev.lethe.store.core.Store;
import dev.lethe.store.git.GitStore;

/** What {@code pull} and {@code push} share: they need a {@code git:} store. */
final class GitCommands {

  private GitCommands() {}

  /** Opens the command's {@code --store}, which must be an existing {@code git:} store. */
  static GitStore gitStore(StoreSubcommand command) {
    if (command.storeUri == null || !command.storeUri.startsWith(GitStore.SCHEME)) {
      throw new UsageException("--store '" + command.storeUri + "' is not a git: store (pull and push need git:DIR)");
    }
    Store store = command.openStore(command.cap());
    if (!(store instanceof GitStore git)) {
      throw new UsageException("--store '" + command.storeUri + "' is not a git: store");
    }
    return git;
  }
}
