package dev.lethe.store.remote;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lethe.store.core.format.StrictJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * One request to a lethe server's store routes and its answer: the base URL, the bearer token
 * (sent on every request, never put in a message), timeouts, and the mapping of transport errors
 * to {@link UncheckedIOException}. Thread-safe.
 */
final class StoreHttp {

  /** An answer: status, headers and body bytes. */
  record Response(int status, byte[] body, HttpResponse<byte[]> raw) {
    /** A text field of an error body {@code {code, type, message, …}}, or empty. */
    Optional<String> errorField(String field) {
      try {
        JsonNode n = StrictJson.read(body, "error");
        return n.hasNonNull(field) ? Optional.of(n.get(field).asText()) : Optional.empty();
      } catch (IllegalArgumentException notJson) {
        return Optional.empty();
      }
    }

    /** The {@code message} of an error body {@code {code, type, message}}, or a short excerpt. */
    String message() {
      try {
        JsonNode n = StrictJson.read(body, "error");
        if (n.hasNonNull("message")) {
          return n.get("message").asText();
        }
        if (n.path("error").hasNonNull("message")) {
          return n.path("error").get("message").asText();
        }
      } catch (IllegalArgumentException notJson) {
        // fall through
      }
      String text = new String(body, StandardCharsets.UTF_8).replaceAll("\\s+", " ").trim();
      return text.isEmpty() ? "(no body)" : text.length() > 200 ? text.substring(0, 200) + "…" : text;
    }
  }

  private final HttpClient client;
  private final String base; // e.g. http://host:9001/store/v1
  private final Optional<String> token;
  private final Duration timeout;
  private final AnswerDeadline deadlines = new AnswerDeadline();

  StoreHttp(String base, Optional<String> token, Duration connectTimeout, Duration timeout) {
    this.base = base;
    this.token = token;
    this.timeout = timeout;
    this.client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(connectTimeout)
        .followRedirects(HttpClient.Redirect.NEVER)
        // The client's own steps of an exchange (parsing the answer, collecting the body, completing
        // the caller's future) run on its selector thread instead of being handed to a pool thread:
        // fewer thread hand-offs, measured 17-18 context switches per small put down to 10-11
        // (docs/design/0116-store-request-overhead.md). Safe because nothing of ours runs in those
        // steps: every call is a blocking send() with BodyHandlers.ofByteArray(), no async stage.
        .executor(Runnable::run)
        .build();
  }

  /** The base URL of the store routes. */
  String base() {
    return base;
  }

  /** Whether a bearer token is sent. */
  boolean hasToken() {
    return token.isPresent();
  }

  /**
   * Sends a request.
   *
   * @param path below the base, starting with {@code /} (empty for the base itself), query included
   * @param body the body, or null for none
   * @param what the call being made, for a transport error's message
   * @throws UncheckedIOException if the server cannot be reached or the exchange fails
   */
  Response send(String method, String path, byte[] body, Map<String, String> headers, String what) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
        .timeout(timeout)
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
    if (body != null) {
      b.header("Content-Type", headers.getOrDefault("Content-Type", "application/json"));
    }
    headers.forEach((k, v) -> {
      if (!k.equals("Content-Type")) {
        b.header(k, v);
      }
    });
    token.ifPresent(t -> b.header("Authorization", "Bearer " + t));
    // the request timeout ends the wait for the headers only; the deadline covers the whole body
    AnswerDeadline.Call call = deadlines.start(timeout);
    try {
      // send(), not sendAsync().get(): measured 2 more context switches per request (the JDK
      // completes a sendAsync future through another executor)
      HttpResponse<byte[]> r = client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
      return new Response(r.statusCode(), r.body() == null ? new byte[0] : r.body(), r);
    } catch (IOException e) {
      if (call.expired()) {
        throw timedOut(what);
      }
      throw new UncheckedIOException(what + " on " + base, new IOException(describe(e, body), e));
    } catch (InterruptedException e) {
      if (call.expired()) {
        throw timedOut(what);
      }
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(what + " on " + base, new IOException("interrupted", e));
    } finally {
      call.close();
    }
  }

  private UncheckedIOException timedOut(String what) {
    return new UncheckedIOException(what + " on " + base,
        new IOException("timed out: the answer did not arrive whole within " + timeout.toSeconds() + " s"));
  }

  private static String describe(IOException e, byte[] body) {
    if (e instanceof java.net.ConnectException) {
      return "cannot connect (is the server running?)";
    }
    if (e instanceof java.net.http.HttpTimeoutException) {
      return "timed out";
    }
    String m = e.getMessage();
    String cause = m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    if (body != null && body.length > 0) {
      // a server closes the connection unanswered on a body over twice its limit
      // (docs/design/0117-answering-refused-bodies.md); the client sees only a reset or an empty answer
      return "the connection failed while sending a request body of " + body.length + " bytes (" + cause
          + "); a server closes it without answering when the body is over twice its lethe.http.max-request-bytes"
          + " (8 MiB by default)";
    }
    return cause;
  }
}
