package dev.lethe.it;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.rest.RESTCatalog;

/** A real {@code lethe server} process on a free port and fresh H2 data dir, plus clients for it. */
final class ServerFixture implements AutoCloseable {
  final LetheProcess process;
  final Path dataDir;

  private ServerFixture(LetheProcess process, Path dataDir) {
    this.process = process;
    this.dataDir = dataDir;
  }

  static ServerFixture start(String name, Map<String, String> env) throws Exception {
    return start(List.of(), name, env);
  }

  /** A server run through {@code launcher} (e.g. {@code env --ignore-signal=HUP}), see {@link LetheProcess}. */
  static ServerFixture start(List<String> launcher, String name, Map<String, String> env) throws Exception {
    Path work = Path.of(System.getProperty("lethe.it.work-dir", "target/it"));
    Files.createDirectories(work);
    Path dataDir = Files.createTempDirectory(work, name + "-");
    LetheProcess p = LetheProcess.start(launcher, freePort(), dataDir, dataDir.resolve("server.log"), List.of(), env);
    return new ServerFixture(p, dataDir);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** A RESTCatalog client on catalog {@code main}, using Lethe's local FileIO (no Hadoop FileIO). */
  RESTCatalog client(String token) {
    return new Client(process).open(token);
  }

  /** Opens RESTCatalog clients on any server process. */
  record Client(LetheProcess server) {
    RESTCatalog open() {
      return open(null);
    }

    RESTCatalog open(String token) {
      return ServerFixture.open(server, token);
    }
  }

  private static RESTCatalog open(LetheProcess process, String token) {
    Map<String, String> props = new HashMap<>();
    props.put("uri", process.icebergUri());
    props.put("warehouse", "main");
    props.put("io-impl", "dev.lethe.catalog.io.LocalFileIO");
    if (token != null) {
      props.put("token", token);
    }
    RESTCatalog catalog = new RESTCatalog();
    catalog.initialize("lethe", props);
    return catalog;
  }

  @Override
  public void close() throws Exception {
    process.close();
  }
}
