package dev.lethe.store.s3.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Executors;

/**
 * A real HTTP proxy in front of an S3 server that answers chosen requests itself: a scripted fault
 * for the next requests of a method (a 412, a 409 {@code ConditionalRequestConflict}, a 500, the
 * object deleted just before the request is forwarded, or a 500 after the request was forwarded
 * and done). Every request is recorded, so a test counts exactly what the store sent.
 */
public final class FaultProxy implements AutoCloseable {

  /** What the proxy does with one request. */
  public sealed interface Fault permits Answer, DeleteFirst, AnswerAfterForwarding {}

  /** Answer {@code status} with an S3 error document of {@code code}; forward nothing. */
  public record Answer(int status, String code) implements Fault {}

  /** Delete the request's object on the server (as another writer would), then forward the request. */
  public record DeleteFirst() implements Fault {}

  /** Forward the request (it takes effect), then answer {@code status} instead of the server's answer. */
  public record AnswerAfterForwarding(int status, String code) implements Fault {}

  /** 412 PreconditionFailed. */
  public static final Fault PRECONDITION_FAILED = new Answer(412, "PreconditionFailed");
  /** 409 ConditionalRequestConflict. */
  public static final Fault CONDITIONAL_CONFLICT = new Answer(409, "ConditionalRequestConflict");
  /** 500 InternalError. */
  public static final Fault INTERNAL_ERROR = new Answer(500, "InternalError");

  private static final Set<String> HOP_HEADERS =
      Set.of("host", "content-length", "connection", "expect", "transfer-encoding", "upgrade", "keep-alive");

  private final HttpServer server;
  private final URI target;
  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final List<String> requests = new ArrayList<>();
  private final Deque<Rule> rules = new ArrayDeque<>();

  private record Rule(String method, Fault fault) {}

  /** Starts a proxy on an ephemeral loopback port in front of {@code target}. */
  public FaultProxy(URI target) throws IOException {
    this.target = target;
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "fault-proxy");
      t.setDaemon(true);
      return t;
    }));
    server.createContext("/", this::handle);
    server.start();
  }

  /** The proxy's endpoint, {@code http://127.0.0.1:PORT}. */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /** Applies {@code fault} to each of the next {@code times} requests of {@code method}. */
  public synchronized void next(String method, int times, Fault fault) {
    for (int i = 0; i < times; i++) {
      rules.addLast(new Rule(method, fault));
    }
  }

  /** Drops every pending fault and forgets the recorded requests. */
  public synchronized void reset() {
    rules.clear();
    requests.clear();
  }

  /** Returns how many requests of {@code method} were received since the last reset. */
  public synchronized long count(String method) {
    return requests.stream().filter(r -> r.startsWith(method + " ")).count();
  }

  /** Returns the requests received since the last reset, as {@code METHOD path}. */
  public synchronized List<String> requests() {
    return List.copyOf(requests);
  }

  private synchronized Fault take(String method) {
    requests.add(method);
    for (var it = rules.iterator(); it.hasNext(); ) {
      Rule r = it.next();
      if (r.method().equals(method)) {
        it.remove();
        return r.fault();
      }
    }
    return null;
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      String method = ex.getRequestMethod();
      String path = ex.getRequestURI().getRawPath();
      byte[] body;
      try (InputStream in = ex.getRequestBody()) {
        body = in.readAllBytes();
      }
      Fault fault;
      synchronized (this) {
        fault = take(method);
        requests.set(requests.size() - 1, method + " " + path);
      }
      if (fault instanceof Answer a) {
        error(ex, a.status(), a.code());
        return;
      }
      if (fault instanceof DeleteFirst) {
        client.send(HttpRequest.newBuilder(target.resolve(path)).DELETE().build(), HttpResponse.BodyHandlers.discarding());
      }
      HttpResponse<byte[]> answer = forward(ex, method, body);
      if (fault instanceof AnswerAfterForwarding a) {
        error(ex, a.status(), a.code());
        return;
      }
      answer.headers().map().forEach((name, values) -> {
        if (!HOP_HEADERS.contains(name.toLowerCase(Locale.ROOT)) && !name.equals(":status")) {
          ex.getResponseHeaders().put(name, values);
        }
      });
      byte[] out = answer.body();
      boolean noBody = method.equals("HEAD") || out.length == 0;
      if (method.equals("HEAD")) {
        answer.headers().firstValue("Content-Length").ifPresent(l -> ex.getResponseHeaders().set("Content-Length", l));
      }
      ex.sendResponseHeaders(answer.statusCode(), noBody ? -1 : out.length);
      if (!noBody) {
        ex.getResponseBody().write(out);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private HttpResponse<byte[]> forward(HttpExchange ex, String method, byte[] body)
      throws IOException, InterruptedException {
    HttpRequest.Builder req = HttpRequest.newBuilder(target.resolve(ex.getRequestURI().getRawPath()
        + (ex.getRequestURI().getRawQuery() == null ? "" : "?" + ex.getRequestURI().getRawQuery())));
    ex.getRequestHeaders().forEach((name, values) -> {
      if (!HOP_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
        values.forEach(v -> req.header(name, v));
      }
    });
    req.method(method, body.length == 0 ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
    return client.send(req.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  private static void error(HttpExchange ex, int status, String code) throws IOException {
    byte[] xml = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code + "</Code><Message>injected by"
        + " the test proxy</Message></Error>").getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/xml");
    ex.sendResponseHeaders(status, ex.getRequestMethod().equals("HEAD") ? -1 : xml.length);
    if (!ex.getRequestMethod().equals("HEAD")) {
      ex.getResponseBody().write(xml);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
