package io.gpufleet.sim;

import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.vertx.HttpServerRequestHandler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.SelfSignedCertificate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The HTTPS face of a simulated API server, negotiated as kube-apiserver's is: TLS with ALPN
 * offering {@code h2} then {@code http/1.1}, so a client that speaks HTTP/2 (the functions' JDK
 * client does) multiplexes every request over one connection and pays for one handshake.
 *
 * <p>fabric8's mock server can serve TLS but never turns ALPN on, so every client falls back to
 * HTTP/1.1 there and opens a connection (and a handshake) per concurrent request: a cold start
 * measured against it paid for a dozen handshakes where a real cluster costs one. Requests go to
 * the same {@link Dispatcher} as the plain-HTTP port, each on a worker thread, so the streams of
 * one HTTP/2 connection are served concurrently, as kube-apiserver serves them.
 */
final class TlsFront implements AutoCloseable {
  private final Vertx vertx;
  private final HttpServer server;
  private final SelfSignedCertificate certificate;
  private final String host;
  private final AtomicInteger connections;

  private TlsFront(
      Vertx vertx,
      HttpServer server,
      SelfSignedCertificate certificate,
      String host,
      AtomicInteger connections) {
    this.connections = connections;
    this.vertx = vertx;
    this.server = server;
    this.certificate = certificate;
    this.host = host;
  }

  static TlsFront start(InetAddress address, Dispatcher dispatcher) {
    String host = address.isLoopbackAddress() ? "localhost" : address.getHostName();
    var vertx = Vertx.vertx();
    var certificate = SelfSignedCertificate.create(host);
    var options =
        new HttpServerOptions()
            .setHost(address.getHostAddress())
            .setPort(0)
            .setSsl(true)
            .setUseAlpn(true)
            .setAlpnVersions(List.of(HttpVersion.HTTP_2, HttpVersion.HTTP_1_1))
            .setKeyCertOptions(certificate.keyCertOptions());
    var connections = new AtomicInteger();
    // fabric8's handler for WebSocket upgrades (watches); every other request is served
    // concurrently
    var upgrades =
        new HttpServerRequestHandler(vertx) {
          @Override
          protected MockResponse onHttpRequest(RecordedRequest request) {
            return dispatcher.dispatch(request);
          }
        };
    var server =
        vertx
            .createHttpServer(options)
            .connectionHandler(connection -> connections.incrementAndGet())
            .requestHandler(
                request -> {
                  if ("websocket".equalsIgnoreCase(request.getHeader("Upgrade"))) {
                    upgrades.handle(request);
                  } else {
                    serve(vertx, dispatcher, request);
                  }
                });
    try {
      server.listen().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      vertx.close();
      throw new IllegalStateException("interrupted starting the API server's TLS port", e);
    } catch (ExecutionException | TimeoutException e) {
      vertx.close();
      throw new IllegalStateException("cannot start the API server's TLS port", e);
    }
    return new TlsFront(vertx, server, certificate, host, connections);
  }

  /**
   * Serves one request as kube-apiserver serves the streams of a connection: concurrently.
   * fabric8's handler calls the dispatcher on the connection's event loop, so over HTTP/2, where
   * one connection carries every request, it served them one after another; here the dispatcher
   * runs on a worker thread (unordered), and the answer is written back as fabric8 writes it, after
   * the response's body delay (the simulated latency).
   */
  private static void serve(Vertx vertx, Dispatcher dispatcher, HttpServerRequest request) {
    request
        .body()
        .compose(
            body ->
                vertx.executeBlocking(() -> dispatcher.dispatch(recorded(request, body)), false))
        .onSuccess(response -> answer(vertx, request, response))
        .onFailure(
            e -> {
              if (!request.response().ended()) {
                request.response().setStatusCode(500).end(String.valueOf(e));
              }
            });
  }

  static RecordedRequest recorded(HttpServerRequest request, io.vertx.core.buffer.Buffer body) {
    return new RecordedRequest(
        request.version().alpnName().toUpperCase(Locale.ROOT),
        HttpMethod.fromVertx(request.method()),
        request.uri(),
        Headers.builder().addAll(request.headers()).build(),
        new io.fabric8.mockwebserver.http.Buffer(body.getBytes()));
  }

  private static void answer(Vertx vertx, HttpServerRequest request, MockResponse answer) {
    HttpServerResponse response = request.response().setStatusCode(answer.code());
    answer
        .getHeaders()
        .toMultimap()
        .forEach((name, values) -> response.headers().add(name, values));
    if (answer.getBody() == null || answer.getBody().size() <= 0) {
      response.end();
      return;
    }
    if (!response.headers().contains("Transfer-Encoding")) {
      response.headers().add("Content-Length", String.valueOf(answer.getBody().size()));
    }
    var body = io.vertx.core.buffer.Buffer.buffer(answer.getBody().getBytes());
    Duration delay = answer.getBodyDelay();
    if (delay != null && delay.toMillis() > 0) {
      vertx.setTimer(delay.toMillis(), t -> response.send(body));
    } else {
      response.send(body);
    }
  }

  String url() {
    return "https://" + host + ":" + server.actualPort() + "/";
  }

  /** Connections accepted so far (each one a TLS handshake). */
  int connections() {
    return connections.get();
  }

  /** The certificate as DescribeCluster's {@code certificateAuthority.data}: base64 of the PEM. */
  String caData() {
    try {
      byte[] pem = Files.readAllBytes(Path.of(certificate.certificatePath()));
      return Base64.getEncoder().encodeToString(pem);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the API server's certificate", e);
    }
  }

  @Override
  public void close() {
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // closing is best effort; the port dies with the process at the latest
    } finally {
      certificate.delete();
    }
  }
}
