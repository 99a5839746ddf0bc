package dev.lethe.cli.store;

import dev.lethe.store.core.format.CorruptRecordException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * How a {@code lethe store} subcommand ends on a failure: one ordered table, first match wins, of
 * exception → exit code and the one line on stderr ({@code lethe store NAME: …}), handed to picocli
 * as its execution-exception handler (docs/design/0220-library-plumbing.md §picocli); and the one
 * line of an argument a store subcommand does not know, as its parameter-exception handler. Other
 * commands keep their own handling (picocli's {@code IExitCodeExceptionMapper} would apply to all).
 */
public final class StoreFailures implements IExecutionExceptionHandler, IParameterExceptionHandler {

  private record Row(Class<? extends Throwable> type, int exitCode, Function<Throwable, String> line) {}

  private static final List<Row> ROWS = List.of(
      new Row(UsageException.class, ExitCode.USAGE, Throwable::getMessage),
      new Row(StoreSubcommand.CapException.class, ExitCode.ERROR, Throwable::getMessage),
      new Row(CorruptRecordException.class, ExitCode.ERROR, e -> "error: " + e.getMessage()),
      new Row(UncheckedIOException.class, ExitCode.ERROR,
          e -> "error: " + e.getMessage() + ": " + IoErrors.describe(e.getCause())),
      // a key the substrate refuses (the fs store reserves the namespace _blobs), found before any I/O on that key
      new Row(IllegalArgumentException.class, ExitCode.USAGE, Throwable::getMessage),
      new Row(RuntimeException.class, ExitCode.ERROR, e -> "error: " + e));

  private final IParameterExceptionHandler otherwise;

  /** @param otherwise how a usage error of any other command is answered */
  public StoreFailures(IParameterExceptionHandler otherwise) {
    this.otherwise = otherwise;
  }

  @Override
  public int handleExecutionException(Exception ex, CommandLine commandLine, ParseResult parseResult) throws Exception {
    if (!(commandLine.getCommand() instanceof StoreSubcommand command)) {
      throw ex; // picocli's own handling
    }
    Row row = row(ex);
    if (row == null) {
      throw ex;
    }
    PrintWriter err = commandLine.getErr();
    err.println("lethe store " + commandLine.getCommandName() + ": " + row.line().apply(ex));
    command.finish(commandLine.getOut(), err);
    return row.exitCode();
  }

  /**
   * A usage error of a store subcommand found while parsing: an argument it does not know is one line
   * naming it; anything else is answered as for every other command.
   */
  @Override
  public int handleParseException(ParameterException ex, String[] args) throws Exception {
    CommandLine failed = ex.getCommandLine();
    if (failed.getCommand() instanceof StoreSubcommand && ex instanceof UnmatchedArgumentException unmatched
        && !unmatched.getUnmatched().isEmpty()) {
      String first = unmatched.getUnmatched().get(0);
      String name = failed.getCommandName();
      failed.getErr().println("lethe store " + name + ": " + (first.startsWith("-") ? "unknown option '"
          : "unexpected argument '") + first + "' (see 'lethe store " + name + " --help')");
      failed.getErr().flush();
      return ExitCode.USAGE;
    }
    return otherwise.handleParseException(ex, args);
  }

  private static Row row(Throwable e) {
    return ROWS.stream().filter(r -> r.type().isInstance(e)).findFirst().orElse(null);
  }
}
