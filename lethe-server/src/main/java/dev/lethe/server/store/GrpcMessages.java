package dev.lethe.server.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.ByteString;
import dev.lethe.store.core.Committed;
import dev.lethe.store.core.Conflict;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.DeleteResult;
import dev.lethe.store.core.Deleted;
import dev.lethe.store.core.KeyPrefix;
import dev.lethe.store.core.PutResult;
import dev.lethe.store.core.RawPut;
import dev.lethe.store.core.Record;
import dev.lethe.store.core.RecordKey;
import dev.lethe.store.core.Revision;
import dev.lethe.store.core.format.RecordJson;
import dev.lethe.store.core.format.RevisionJson;
import dev.lethe.store.core.format.StrictJson;
import dev.lethe.store.core.planner.RawPutPlanner;
import dev.lethe.store.grpc.GrpcWire;
import dev.lethe.store.grpc.proto.BatchOutcome;
import dev.lethe.store.grpc.proto.DeleteReply;
import dev.lethe.store.grpc.proto.Expected;
import dev.lethe.store.grpc.proto.ListChunk;
import dev.lethe.store.grpc.proto.ListRequest;
import dev.lethe.store.grpc.proto.PutRawBatchReply;
import dev.lethe.store.grpc.proto.PutRawBatchRequest;
import dev.lethe.store.grpc.proto.PutReply;
import dev.lethe.store.grpc.proto.PutRequest;
import dev.lethe.store.grpc.proto.RecordReply;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The store's gRPC messages ↔ its records and outcomes (docs/design/0141-grpc-transport.md): the
 * parsing of request fields, each refusal an {@link IllegalArgumentException} naming the field,
 * and the replies, a Conflict being {@code ABORTED} with the stored record in the {@link
 * GrpcWire#CONFLICT_RECORD} trailer and NotFound on a put {@code FAILED_PRECONDITION}.
 * {@link GrpcStoreService} calls these around its one {@link StoreService} call.
 */
final class GrpcMessages {
  /** Bytes of records in one {@link ListChunk}, well under any message limit. */
  static final int CHUNK_BYTES = 1 << 20;

  private static final RecordJson JSON = new RecordJson();

  private GrpcMessages() {}

  // ---- parsing ------------------------------------------------------------------------------

  static RecordKey key(String text) {
    return RecordKey.parse(text);
  }

  static KeyPrefix prefix(ListRequest r) {
    return prefix(r.getNamespace(), r.getCollection());
  }

  static KeyPrefix prefix(String namespace, String collection) {
    if (namespace.isEmpty()) {
      if (!collection.isEmpty()) {
        throw new IllegalArgumentException("Invalid listing: a collection needs a namespace");
      }
      return KeyPrefix.all();
    }
    return new KeyPrefix(namespace, collection.isEmpty() ? null : collection);
  }

  static Optional<RecordKey> after(ListRequest r) {
    return r.getStartAfter().isEmpty() ? Optional.empty() : Optional.of(RecordKey.parse(r.getStartAfter()));
  }

  static Optional<Revision> expected(boolean present, Expected e) {
    return present ? Optional.of(RevisionJson.parse(e.getRevision())) : Optional.empty();
  }

  /** {@code author_json}: empty for none, else a JSON string naming the claimed deleter. */
  static Optional<String> author(String json) {
    if (json.isEmpty()) {
      return Optional.empty();
    }
    JsonNode n = StrictJson.read(json.getBytes(StandardCharsets.UTF_8), "author_json");
    if (n.isNull()) {
      return Optional.empty();
    }
    if (!n.isTextual() || n.textValue().isBlank()) {
      throw new IllegalArgumentException("Invalid author_json: expected a non-empty JSON string or null");
    }
    return Optional.of(n.textValue());
  }

  static String blobHash(String hash) {
    if (!ContentHash.isValid(hash)) {
      throw new IllegalArgumentException("Invalid blob hash '" + StoreRequests.printable(hash)
          + "': expected 64 lowercase hex characters (the SHA-256 of the content)");
    }
    return hash;
  }

  /** A raw batch's items, each checked as its own put would be; the first refusal names its item. */
  record RawBatch(String namespace, List<RawPut> items) {}

  static RawBatch rawBatch(PutRawBatchRequest request) {
    String namespace = new KeyPrefix(request.getNamespace(), null).namespace();
    int n = request.getItemsCount();
    if (n == 0 || n > StoreService.MAX_BATCH_ITEMS) {
      throw new IllegalArgumentException("Invalid batch: " + n + " items, expected 1 to "
          + StoreService.MAX_BATCH_ITEMS + " (nothing written)");
    }
    List<RawPut> items = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      PutRequest item = request.getItems(i);
      try {
        Record r = StoreRequests.rawRecord(item.getRecordJson().toByteArray(), key(item.getKey()));
        if (!r.key().namespace().equals(namespace)) {
          throw new IllegalArgumentException("its key " + r.key() + " is not in the batch's namespace " + namespace);
        }
        RawPutPlanner.problem(r).ifPresent(problem -> {
          throw new IllegalArgumentException("record " + r.key() + ": " + problem);
        });
        items.add(new RawPut(r, expected(item.hasExpected(), item.getExpected())));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("Invalid batch item " + i + ": " + e.getMessage() + " (nothing written)", e);
      }
    }
    return new RawBatch(namespace, items);
  }

  // ---- answers ------------------------------------------------------------------------------

  static ByteString encode(Record r) {
    return ByteString.copyFrom(JSON.encode(r));
  }

  /**
   * Sends a page of records in chunks of at most {@link #CHUNK_BYTES} bytes of records (a single
   * larger record alone), each as soon as it is full; {@code more} goes on the last.
   */
  static void chunks(List<Record> records, boolean more, Consumer<ListChunk> out) {
    ListChunk.Builder b = ListChunk.newBuilder();
    long bytes = 0;
    for (Record r : records) {
      ByteString encoded = encode(r);
      if (b.getRecordJsonCount() > 0 && bytes + encoded.size() > CHUNK_BYTES) {
        out.accept(b.build());
        b = ListChunk.newBuilder();
        bytes = 0;
      }
      b.addRecordJson(encoded);
      bytes += encoded.size();
    }
    out.accept(b.setMore(more).build());
  }

  static RecordReply recordReply(Optional<Record> r) {
    return r.map(rec -> RecordReply.newBuilder().setFound(true).setRecordJson(encode(rec)).build())
        .orElse(RecordReply.getDefaultInstance());
  }

  static PutReply putReply(PutResult result, boolean creating) {
    if (result instanceof Committed c) {
      return PutReply.newBuilder().setRecordJson(encode(c.record())).setCreated(creating).build();
    }
    if (result instanceof Conflict c) {
      throw conflict(c.current());
    }
    throw Status.FAILED_PRECONDITION
        .withDescription("Not found: the key holds no record to match the expected revision (nothing written)")
        .asRuntimeException();
  }

  static PutRawBatchReply batchReply(List<PutResult> results) {
    PutRawBatchReply.Builder b = PutRawBatchReply.newBuilder();
    for (PutResult result : results) {
      BatchOutcome.Builder o = BatchOutcome.newBuilder();
      if (result instanceof Committed c) {
        o.setKind(BatchOutcome.Kind.COMMITTED).setRecordJson(encode(c.record()));
      } else if (result instanceof Conflict c) {
        o.setKind(BatchOutcome.Kind.CONFLICT).setRecordJson(encode(c.current()));
      } else {
        o.setKind(BatchOutcome.Kind.NOT_FOUND);
      }
      b.addOutcomes(o);
    }
    return b.build();
  }

  static DeleteReply deleteReply(DeleteResult result) {
    if (result instanceof Conflict c) {
      throw conflict(c.current());
    }
    return ((Deleted) result).tombstone()
        .map(t -> DeleteReply.newBuilder().setWritten(true).setRecordJson(encode(t)).build())
        .orElse(DeleteReply.getDefaultInstance());
  }

  private static StatusRuntimeException conflict(Record stored) {
    Metadata trailers = new Metadata();
    trailers.put(GrpcWire.CONFLICT_RECORD, JSON.encode(stored));
    return Status.ABORTED.withDescription("Conflict: " + stored.key() + " is at revision "
        + RevisionJson.format(stored.revision()) + " (nothing written)").asRuntimeException(trailers);
  }
}
