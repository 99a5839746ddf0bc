package dev.lethe.cli.catalog;

import dev.lethe.catalog.iceberg.EntityNames;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The {@code --catalog} option and the {@code NAMESPACE [TABLE]} arguments of the soft deletion
 * commands: a picocli mixin. Every {@code lethe catalog} command takes the catalog as
 * {@code --catalog} (default {@code main}); the old spelling with the catalog as first positional
 * argument ({@code deleted main sales}) still works and prints one deprecation line on stderr
 * (docs/design/0432-one-cli-spelling-and-purge-now.md).
 */
final class SchemaArgs {
  /** The catalog when neither {@code --catalog} nor the old positional spelling names one. */
  static final String DEFAULT_CATALOG = "main";

  @Option(names = "--catalog", paramLabel = "CATALOG", converter = CatalogNameConverter.class,
      description = "Catalog (default: " + DEFAULT_CATALOG + ").")
  String catalogOption;

  @Parameters(paramLabel = "ARGS", arity = "1..*", hideParamSyntax = true,
      description = "NAMESPACE (levels separated by dots, e.g. sales or sales.eu), then TABLE where the command takes one.")
  List<String> positional = new ArrayList<>();

  /** The catalog this command addresses; valid after {@link #resolve}. */
  String catalog;

  /** The namespace, levels separated by dots; valid after {@link #resolve}. */
  String namespace;

  /** The table name for a command that takes one, else null; valid after {@link #resolve}. */
  String table;

  /**
   * Reads the positional arguments for a command that takes {@code NAMESPACE} ({@code withTable}
   * false) or {@code NAMESPACE TABLE}: one more in front is the deprecated catalog.
   *
   * @throws CommandLine.ParameterException (exit 2, one stderr line) for a wrong count, or a catalog
   *     given both ways, or a bad catalog name
   */
  void resolve(CommandLine.Model.CommandSpec spec, boolean withTable) {
    int own = withTable ? 2 : 1;
    List<String> args = positional;
    String usage = withTable ? "NAMESPACE TABLE" : "NAMESPACE";
    if (args.size() == own + 1) {
      if (catalogOption != null) {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "the catalog is given twice: --catalog " + catalogOption + " and '" + args.get(0) + "' (expected " + usage + ")");
      }
      catalog = new CatalogNameConverter().convertOrThrow(spec, args.get(0));
      spec.commandLine().getErr().println(spec.qualifiedName() + ": deprecated: the catalog as first argument;"
          + " use --catalog " + args.get(0));
      spec.commandLine().getErr().flush();
      args = args.subList(1, args.size());
    } else if (args.size() != own) {
      throw new CommandLine.ParameterException(spec.commandLine(),
          "expected " + usage + ", got " + args.size() + " argument" + (args.size() == 1 ? "" : "s"));
    } else {
      catalog = catalogOption != null ? catalogOption : DEFAULT_CATALOG;
    }
    namespace = args.get(0);
    table = withTable ? args.get(1) : null;
  }

  /** A catalog name checked as the server checks it, before any request (exit 2 when bad). */
  static final class CatalogNameConverter implements CommandLine.ITypeConverter<String> {
    @Override
    public String convert(String value) {
      try {
        EntityNames.check("catalog", value);
        return value;
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }

    String convertOrThrow(CommandLine.Model.CommandSpec spec, String value) {
      try {
        return convert(value);
      } catch (CommandLine.TypeConversionException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
    }
  }
}
