package io.gpufleet.sim;

import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.vertx.HttpServerRequestHandler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.SelfSignedCertificate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
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
 * the same {@link Dispatcher} as the plain-HTTP port.
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
    var server =
        vertx
            .createHttpServer(options)
            .connectionHandler(connection -> connections.incrementAndGet())
            .requestHandler(
                new HttpServerRequestHandler(vertx) {
                  @Override
                  protected MockResponse onHttpRequest(RecordedRequest request) {
                    return dispatcher.dispatch(request);
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
