package dev.lethe.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Starts one real {@code lethe server} process on an empty catalog before the Iceberg REST
 * Compatibility Kit runs, and stops it (and drops its database) afterwards. Active only when
 * {@code lethe.it.backend} ({@code h2}, {@code postgresql}, {@code mariadb}) is set, as the
 * failsafe executions of this module do; the server listens on
 * {@code lethe.it.port} or a free port, and the kit's client is pointed at it through the system
 * property {@code uri}. A backend whose server URL
 * is empty is skipped (see {@link BackendCondition}) unless {@code lethe.test.require-dbs=true},
 * which fails the run. The server allows the kit's locations outside the warehouse ({@link
 * #KIT_LOCATIONS}).
 */
public final class RckServerSessionListener implements LauncherSessionListener {
  /**
   * Where the kit puts tables and views outside the warehouse: {@code file:/tmp/…} (its {@code
   * BASE_TABLE_LOCATION}) and JUnit temporary directories under {@code java.io.tmpdir}. A confined
   * catalog answers 400 to those locations (issue 9 rule 1), so the kit's server allows them with
   * {@code lethe.catalog.allowed-locations} (docs/compatibility.md explains the choice).
   */
  static final String KIT_LOCATIONS = "file:/tmp," + Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath();

  /** Set to the reason when the backend is skipped; read by {@link BackendCondition}. */
  static final String SKIPPED = "lethe.it.backend.skipped";

  private LetheProcess server;
  private Backends.Fresh database;

  @Override
  public void launcherSessionOpened(LauncherSession session) {
    String backend = System.getProperty("lethe.it.backend");
    if (backend == null || backend.isBlank()) {
      return;
    }
    try {
      int port = port();
      List<String> args = new ArrayList<>();
      if (!backend.equals("h2")) {
        Optional<String> url = Backends.serverUrl(backend);
        if (url.isEmpty()) {
          if (Boolean.getBoolean("lethe.test.require-dbs")) {
            throw new IllegalStateException("Backend " + backend + " has no server URL but lethe.test.require-dbs=true");
          }
          System.setProperty(SKIPPED, "no server URL for " + backend);
          return;
        }
        database = Backends.create(backend, url.get());
        args.add("--jdbc-url");
        args.add(database.jdbcUrl());
      }
      Path work = Path.of(System.getProperty("lethe.it.work-dir", "target"));
      Files.createDirectories(work);
      Path dataDir = Files.createTempDirectory(work, "rck-" + backend + "-");
      server = LetheProcess.start(port, dataDir, work.resolve("rck-" + backend + "-server.log"), args,
          Map.of("LETHE_CATALOG_ALLOWED_LOCATIONS", KIT_LOCATIONS));
      // the kit's client reads its settings from CATALOG_* variables and then system properties
      System.setProperty("uri", server.icebergUri());
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("Cannot start lethe server for backend " + backend + ": " + e.getMessage(), e);
    }
  }

  /** {@code lethe.it.port} if set, else a free port, so parallel builds on one machine do not collide. */
  private static int port() throws java.io.IOException {
    String fixed = System.getProperty("lethe.it.port", "");
    if (!fixed.isBlank()) {
      return Integer.parseInt(fixed.trim());
    }
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Override
  public void launcherSessionClosed(LauncherSession session) {
    try {
      if (server != null) {
        server.stop();
      }
      if (database != null) {
        database.drop();
      }
    } catch (Exception e) {
      throw new IllegalStateException("Cannot stop lethe server: " + e.getMessage(), e);
    }
  }
}
