package dev.lethe.cli.catalog;

import picocli.CommandLine.Parameters;

/** The {@code CATALOG NAMESPACE} arguments of the soft deletion commands: a picocli mixin. */
final class SchemaArgs {
  @Parameters(index = "0", paramLabel = "CATALOG", description = "Catalog, e.g. main.")
  String catalog;

  @Parameters(index = "1", paramLabel = "NAMESPACE", description = "Namespace, levels separated by dots, e.g. sales or sales.eu.")
  String namespace;
}
