package dev.lethe.store.grpc;

import io.grpc.Metadata;

/**
 * What client and server of the gRPC transport agree on beyond the proto
 * (docs/design/0141-grpc-transport.md).
 */
public final class GrpcWire {

  private GrpcWire() {}

  /** Trailer of an {@code ABORTED} answer: the stored record (record JSON) a write conflicted with. */
  public static final Metadata.Key<byte[]> CONFLICT_RECORD =
      Metadata.Key.of("lethe-record-bin", Metadata.BINARY_BYTE_MARSHALLER);

  /** Trailer of an {@code INTERNAL} answer about a corrupt stored record: its key. */
  public static final Metadata.Key<String> CORRUPT_KEY =
      Metadata.Key.of("lethe-corrupt-key", Metadata.ASCII_STRING_MARSHALLER);

  /** The bearer token's header, {@code authorization: Bearer <token>}. */
  public static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  /** The server's default port ({@code lethe.store.grpc-port}). */
  public static final int DEFAULT_PORT = 9002;

  /** Records per chunk of a {@code ListRaw} stream. */
  public static final int CHUNK = 500;
}
