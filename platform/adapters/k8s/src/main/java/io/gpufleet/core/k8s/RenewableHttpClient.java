package io.gpufleet.core.k8s;

import io.gpufleet.core.lambda.SnapStart;
import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * The JDK HTTP client under a fabric8 client, replaceable in place: {@link #renew()} builds a new
 * JDK client from the same builder and shuts the old one down, dropping every pooled connection to
 * the API server. A SnapStart restore does this, since connections opened before the snapshot do
 * not survive it (the fabric8 client, its serialization and its configuration stay as primed).
 */
final class RenewableHttpClient extends HttpClient implements SnapStart.Renewable {
  private final HttpClient.Builder builder;
  private volatile HttpClient current;

  RenewableHttpClient(HttpClient.Builder builder) {
    this.builder = builder;
    this.current = builder.build();
    SnapStart.register(this);
  }

  @Override
  public void renew() {
    HttpClient old;
    synchronized (this) {
      old = current;
      current = builder.build();
    }
    old.shutdownNow();
  }

  @Override
  public Optional<CookieHandler> cookieHandler() {
    return current.cookieHandler();
  }

  @Override
  public Optional<Duration> connectTimeout() {
    return current.connectTimeout();
  }

  @Override
  public Redirect followRedirects() {
    return current.followRedirects();
  }

  @Override
  public Optional<ProxySelector> proxy() {
    return current.proxy();
  }

  @Override
  public SSLContext sslContext() {
    return current.sslContext();
  }

  @Override
  public SSLParameters sslParameters() {
    return current.sslParameters();
  }

  @Override
  public Optional<Authenticator> authenticator() {
    return current.authenticator();
  }

  @Override
  public Version version() {
    return current.version();
  }

  @Override
  public Optional<Executor> executor() {
    return current.executor();
  }

  @Override
  public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
      throws IOException, InterruptedException {
    return current.send(request, handler);
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(
      HttpRequest request, HttpResponse.BodyHandler<T> handler) {
    return current.sendAsync(request, handler);
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(
      HttpRequest request,
      HttpResponse.BodyHandler<T> handler,
      HttpResponse.PushPromiseHandler<T> pushPromiseHandler) {
    return current.sendAsync(request, handler, pushPromiseHandler);
  }

  @Override
  public WebSocket.Builder newWebSocketBuilder() {
    return current.newWebSocketBuilder();
  }

  @Override
  public void shutdown() {
    current.shutdown();
  }

  @Override
  public void shutdownNow() {
    current.shutdownNow();
  }

  @Override
  public boolean awaitTermination(Duration duration) throws InterruptedException {
    return current.awaitTermination(duration);
  }

  @Override
  public boolean isTerminated() {
    return current.isTerminated();
  }

  @Override
  public void close() {
    current.close();
  }
}
