package dev.lethe.store.remote;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.store.core.ContentHash;
import dev.lethe.store.core.blob.BlobInfo;
import dev.lethe.store.core.blob.BlobRef;
import dev.lethe.store.core.blob.BlobStore;
import dev.lethe.store.core.format.StrictJson;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The blob store of a remote store, over {@code /store/v1/blobs} (docs/store.md "Routes"): a put
 * sends the bytes under their SHA-256, which the server checks; a removal is conditional on the
 * stored time, which the server checks again at removal, as {@link BlobStore#remove} requires.
 */
final class RemoteBlobStore implements BlobStore {

  private final StoreHttp http;
  private final RemoteStore store;

  RemoteBlobStore(StoreHttp http, RemoteStore store) {
    this.http = http;
    this.store = store;
  }

  private static String check(String hash) {
    if (!ContentHash.isValid(hash)) {
      throw new IllegalArgumentException("Invalid blob hash '" + hash + "'");
    }
    return hash;
  }

  @Override
  public BlobRef put(byte[] content) {
    String hash = ContentHash.of(content);
    String what = "Cannot store blob " + hash;
    StoreHttp.Response r = http.send("PUT", "/blobs/" + hash, content,
        Map.of("Content-Type", "application/octet-stream"), what);
    if (r.status() != 200) {
      throw store.failure(r, what, "PUT /blobs/" + hash, false);
    }
    return new BlobRef(hash, content.length);
  }

  @Override
  public Optional<byte[]> get(String hash) {
    String what = "Cannot read blob " + check(hash);
    StoreHttp.Response r = http.send("GET", "/blobs/" + hash, null, Map.of(), what);
    if (r.status() == 200) {
      return Optional.of(r.body());
    }
    if (r.status() == 404) {
      return Optional.empty();
    }
    throw store.failure(r, what, "GET /blobs/" + hash, false);
  }

  @Override
  public boolean contains(String hash) {
    String what = "Cannot read blob " + check(hash);
    StoreHttp.Response r = http.send("HEAD", "/blobs/" + hash, null, Map.of(), what);
    if (r.status() == 200 || r.status() == 404) {
      return r.status() == 200;
    }
    throw store.failure(r, what, "HEAD /blobs/" + hash, false);
  }

  @Override
  public List<BlobInfo> list() {
    List<BlobInfo> out = new ArrayList<>();
    String token = null;
    do {
      String path = "/blobs?pageSize=1000"
          + (token == null ? "" : "&pageToken=" + URLEncoder.encode(token, StandardCharsets.UTF_8));
      StoreHttp.Response r = http.send("GET", path, null, Map.of(), "Cannot list blobs");
      if (r.status() != 200) {
        throw store.failure(r, "Cannot list blobs", "GET /blobs", true);
      }
      JsonNode page = StrictJson.read(r.body(), "blob listing");
      for (JsonNode b : page.path("blobs")) {
        out.add(new BlobInfo(check(b.path("hash").asText()), b.path("length").asLong(), b.path("storedAt").asLong()));
      }
      JsonNode next = page.get("nextPageToken");
      token = next == null || next.isNull() ? null : next.asText();
    } while (token != null);
    return out;
  }

  @Override
  public boolean remove(String hash, long storedAtOrBeforeMs) {
    String what = "Cannot remove blob " + check(hash);
    StoreHttp.Response r = http.send("DELETE", "/blobs/" + hash + "?storedAtOrBefore=" + storedAtOrBeforeMs, null,
        Map.of(), what);
    if (r.status() != 200) {
      throw store.failure(r, what, "DELETE /blobs/" + hash, true);
    }
    return StrictJson.read(r.body(), "blob removal").path("removed").asBoolean();
  }
}
