package dev.lethe.server;

import java.nio.file.Path;

/**
 * Resolved server settings.
 *
 * @param host address to bind, never null
 * @param port TCP port; 0 picks a free one
 * @param dataDir directory for the embedded database and the local warehouse, never null
 */
public record ServerConfig(String host, int port, Path dataDir) {}
