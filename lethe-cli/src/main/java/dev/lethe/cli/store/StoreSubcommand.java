package dev.lethe.cli.store;

import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.Store;
import dev.lethe.store.core.format.RecordFormatException;
import dev.lethe.store.core.format.RevisionJson;
import dev.lethe.store.remote.BearerToken;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Shared options and error mapping of every {@code lethe store} subcommand: {@code --store},
 * {@code --ancestor-cap}; usage errors exit 2 with one line on stderr, store errors exit 1
 * ({@link StoreFailures}, picocli's handlers). Options are validated here rather than by picocli
 * converters so every bad value gets exactly one line naming it.
 */
abstract class StoreSubcommand implements Callable<Integer> {

  /** The author recorded on deletes made by the CLI. */
  static final String CLI_AUTHOR = "lethe-cli";

  @Spec CommandSpec spec;

  @Option(names = "--store", paramLabel = "URI", defaultValue = "file:.",
      description = "Store to use: file:DIR, git:DIR, http(s)://host:port (a lethe server), jdbc:postgresql://…, jdbc:mariadb://…, jdbc:h2:…, s3://bucket/prefix or memory: (default: ${DEFAULT-VALUE}).")
  String storeUri;

  @Option(names = "--ancestor-cap", paramLabel = "K", defaultValue = "32",
      description = "Ancestors kept per record, at least 1 (default: ${DEFAULT-VALUE}).")
  String ancestorCap;

  /** The clock stamping times; the system clock. */
  Clock clock = Clock.systemUTC();

  /** Opens a store from a URI. */
  @FunctionalInterface
  interface Opener {
    /** Opens {@code uri}, given as option {@code option}. */
    Store open(String option, String uri, int cap, Clock clock);
  }

  @Option(names = "--token", paramLabel = "TOKEN",
      description = "Bearer token for http(s) stores (default: environment variable LETHE_TOKEN).")
  String token;

  /** The process environment (LETHE_TOKEN, LETHE_STORE_S3_*); replaced by tests. */
  Map<String, String> environment = System.getenv();

  /** How URIs become stores; tests wrap the real stores to interleave a concurrent writer. */
  Opener opener = (option, uri, cap, clock) -> StoreUri.open(option, uri, cap, clock, token(), environment);

  /** The bearer token for http(s) stores: {@code --token}, else {@code LETHE_TOKEN}; never printed. */
  Optional<String> token() {
    String t = token != null ? token : environment.get("LETHE_TOKEN");
    if (t == null || t.isBlank()) {
      return Optional.empty();
    }
    // exit 2 naming where it came from, never echoing it (docs/design/0414-a-bad-token-is-refused-unprinted.md)
    BearerToken.check(t.trim(), token != null ? "--token" : "LETHE_TOKEN");
    return Optional.of(t.trim());
  }

  /** Stores opened by this command that hold resources (a JDBC pool), closed when it ends. */
  private final List<AutoCloseable> opened = new ArrayList<>();

  /** Runs the subcommand and returns its exit code. */
  abstract int execute(PrintWriter out, PrintWriter err);

  /** Runs the subcommand; a failure is answered by {@link StoreFailures}, which then calls {@link #finish}. */
  @Override
  public final Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    int code = execute(out, err);
    finish(out, err);
    return code;
  }

  /** Closes the stores this command opened and flushes its output, once its outcome is written. */
  void finish(PrintWriter out, PrintWriter err) {
    closeStores(err);
    out.flush();
    err.flush();
  }

  private void closeStores(PrintWriter err) {
    for (AutoCloseable c : opened) {
      try {
        c.close();
      } catch (Exception e) {
        // the command's outcome is already decided; a pool that fails to close loses nothing
        err.println("lethe store " + spec.name() + ": warning: cannot close " + c + ": " + e.getMessage());
      }
    }
    opened.clear();
  }

  /** Parses {@code --ancestor-cap}; exits 1 for a cap below 1, as the design asks. */
  int cap() {
    long cap;
    try {
      cap = Long.parseLong(ancestorCap.trim());
    } catch (NumberFormatException e) {
      throw new UsageException("--ancestor-cap must be an integer, got '" + ancestorCap + "'");
    }
    if (cap < 1) {
      throw new CapException();
    }
    if (cap > 100_000) {
      throw new UsageException("--ancestor-cap " + cap + " is too large (at most 100000)");
    }
    return (int) cap;
  }

  /** Thrown for an ancestor cap below 1: an error (exit 1), not a usage error. */
  static final class CapException extends RuntimeException {
    CapException() {
      super("ancestor cap must be at least 1");
    }
  }

  /**
   * Whether this command may start a new store: {@code put} and {@code sync} create a missing
   * {@code file:} directory, every other command reports it (exit 2).
   */
  boolean createsStore() {
    return false;
  }

  /** Opens {@code --store}. */
  Store openStore(int cap) {
    if (!createsStore()) {
      StoreUri.requireExisting("--store", storeUri);
    }
    return open("--store", storeUri, cap);
  }

  /** Opens a store named by {@code option}; it is closed when the command ends. */
  Store open(String option, String uri, int cap) {
    Store store = opener.open(option, uri, cap, clock);
    if (store instanceof AutoCloseable c) {
      opened.add(c);
    }
    return store;
  }

  /** Validates a key from its three options. */
  static RecordKey key(String namespace, String collection, String id) {
    require("--namespace", namespace);
    require("--collection", collection);
    require("--id", id);
    try {
      return new RecordKey(namespace, collection, id);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
  }

  /** Validates a prefix; {@code --collection} needs {@code --namespace}. */
  static KeyPrefix prefix(String namespace, String collection) {
    if (collection != null && namespace == null) {
      throw new UsageException("--collection needs --namespace");
    }
    try {
      return new KeyPrefix(namespace, collection);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
  }

  /** Parses {@code --expected}. */
  static Optional<Revision> expected(String json) {
    if (json == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(RevisionJson.parse(json));
    } catch (RecordFormatException e) {
      throw new UsageException("--expected: " + e.getMessage());
    }
  }

  static void require(String option, String value) {
    if (value == null) {
      throw new UsageException("missing " + option);
    }
  }
}
