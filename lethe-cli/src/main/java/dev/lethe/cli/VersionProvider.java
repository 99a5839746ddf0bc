package dev.lethe.cli;

import picocli.CommandLine;

/** Reports the version recorded in the jar manifest, or {@code dev} when run from classes. */
final class VersionProvider implements CommandLine.IVersionProvider {
  @Override
  public String[] getVersion() {
    String v = LetheCommand.class.getPackage().getImplementationVersion();
    return new String[] {"lethe " + (v == null ? "dev" : v)};
  }
}
