package dev.lethe.cli;

import dev.lethe.server.LetheServer;
import dev.lethe.server.ServerConfig;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code lethe server}: runs the catalog and store daemon until SIGTERM. */
@Command(name = "server", mixinStandardHelpOptions = true, description = "Run the Lethe server.")
final class ServerCommand implements Callable<Integer> {

  @Option(names = "--host", description = "Address to bind (default: ${DEFAULT-VALUE}).", defaultValue = "127.0.0.1")
  String host;

  @Option(names = "--port", description = "Port to listen on (default: ${DEFAULT-VALUE}).", defaultValue = "9001")
  int port;

  @Option(names = "--data-dir", description = "Directory for the embedded database and warehouse (default: ${DEFAULT-VALUE}).", defaultValue = "./lethe-data")
  Path dataDir;

  @Override
  public Integer call() throws Exception {
    ServerConfig config = new ServerConfig(host, port, dataDir);
    LetheServer server = LetheServer.start(config);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.close();
      stopped.countDown();
    }, "lethe-shutdown"));
    stopped.await();
    return 0;
  }
}
