package io.gpufleet.testkit.lambda;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * The parts of the Lambda platform the Runtime Interface Emulator leaves out for SnapStart, on
 * loopback: the runtime API as the runtime interface client sees it after INIT of a SnapStart
 * version, and the container credentials endpoint.
 *
 * <ul>
 *   <li>Runtime API: every request is passed to the emulator's runtime API unchanged, except {@code
 *       GET /2018-06-01/runtime/restore/next}, which Lambda answers only once the snapshot is
 *       restored in a new environment: this proxy answers it (200) as that restore, and from then
 *       on the credentials endpoint hands out the restored environment's credentials. (The emulator
 *       itself serves {@code restore/next} only with {@code --enable-init-caching}, and then hands
 *       the first invocation to that request: the invocation is lost.)
 *   <li>Credentials: {@code GET /2021-04-23/credentials} answers only a request whose {@code
 *       Authorization} header is the token (404 otherwise, as the emulator's and Lambda's do), with
 *       the INIT credentials before the restore and the restore credentials after it.
 * </ul>
 *
 * Every request is recorded in order ({@link #log()}), so a test can hold the runtime interface
 * client to Lambda's sequence: beforeCheckpoint hooks, {@code restore/next}, afterRestore hooks,
 * {@code invocation/next}.
 */
public final class LambdaPlatform implements AutoCloseable {
  public static final String RESTORE_NEXT = "/2018-06-01/runtime/restore/next";
  public static final String CREDENTIALS_PATH = "/2021-04-23/credentials";
  private static final Set<String> HOP_HEADERS =
      Set.of("host", "content-length", "connection", "transfer-encoding", "expect", "upgrade");

  /** Access keys handed out before and after the restore. */
  public record Keys(String initAccessKeyId, String restoredAccessKeyId) {}

  /** One request the function's runtime made: its answer status, 0 for one passed on. */
  public record Call(Instant at, String method, String path, int status) {}

  private final HttpServer server;
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final String token = UUID.randomUUID().toString();
  private final Keys keys;
  private final List<Call> log = new CopyOnWriteArrayList<>();
  private volatile URI runtimeApi;
  private volatile boolean restored;
  private volatile BooleanSupplier beforeRestore = () -> true;
  private volatile String beforeRestoreFailure;

  private LambdaPlatform(Keys keys) throws IOException {
    this.keys = keys;
    this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    server.createContext("/", this::handle);
    server.start();
  }

  public static LambdaPlatform start(Keys keys) {
    try {
      return new LambdaPlatform(keys);
    } catch (IOException e) {
      throw new IllegalStateException("cannot start the Lambda platform endpoint", e);
    }
  }

  /** host:port, the value of AWS_LAMBDA_RUNTIME_API the runtime is given. */
  public String address() {
    return "127.0.0.1:" + server.getAddress().getPort();
  }

  public String credentialsUri() {
    return "http://" + address() + CREDENTIALS_PATH;
  }

  public String token() {
    return token;
  }

  /** Where the emulator's runtime API listens (requests other than restore/next go there). */
  public void forwardTo(String hostPort) {
    this.runtimeApi = URI.create("http://" + hostPort);
  }

  /**
   * A condition that must hold when the runtime asks for {@code restore/next} (checked then; a
   * failure is reported by {@link #beforeRestoreFailure()} and answered with 500).
   */
  public void requireBeforeRestore(BooleanSupplier condition) {
    this.beforeRestore = condition;
  }

  public String beforeRestoreFailure() {
    return beforeRestoreFailure;
  }

  public boolean restored() {
    return restored;
  }

  public List<Call> log() {
    return List.copyOf(log);
  }

  private void handle(HttpExchange ex) throws IOException {
    String path = ex.getRequestURI().getPath();
    try (ex) {
      if (path.equals(CREDENTIALS_PATH)) {
        credentials(ex);
      } else if (path.equals(RESTORE_NEXT)) {
        restoreNext(ex);
      } else {
        forward(ex);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void credentials(HttpExchange ex) throws IOException {
    String auth = ex.getRequestHeaders().getFirst("Authorization");
    if (!token.equals(auth)) {
      reply(ex, 404, "cannot get credentials for the provided token");
      return;
    }
    String key = restored ? keys.restoredAccessKeyId() : keys.initAccessKeyId();
    String body =
        "{\"AccessKeyId\":\""
            + key
            + "\",\"SecretAccessKey\":\"secret-"
            + key
            + "\",\"Token\":\"session-"
            + key
            + "\",\"Expiration\":\""
            + Instant.now()
                .plus(Duration.ofHours(6))
                .truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
            + "\"}";
    reply(ex, 200, body);
  }

  private void restoreNext(HttpExchange ex) throws IOException {
    if (!beforeRestore.getAsBoolean()) {
      beforeRestoreFailure = "the condition required before restore/next did not hold";
      reply(ex, 500, "{}");
      return;
    }
    restored = true;
    reply(ex, 200, "");
  }

  private void reply(HttpExchange ex, int status, String body) throws IOException {
    log.add(new Call(Instant.now(), ex.getRequestMethod(), ex.getRequestURI().getPath(), status));
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      ex.getResponseBody().write(bytes);
    }
  }

  private void forward(HttpExchange ex) throws IOException, InterruptedException {
    URI base = runtimeApi;
    if (base == null) {
      reply(ex, 502, "no runtime API to forward to");
      return;
    }
    // logged on arrival: invocation/next is a long poll, answered only when an invoke comes
    log.add(new Call(Instant.now(), ex.getRequestMethod(), ex.getRequestURI().getPath(), 0));
    byte[] body = ex.getRequestBody().readAllBytes();
    var request =
        HttpRequest.newBuilder(base.resolve(ex.getRequestURI().toString()))
            .method(ex.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
    ex.getRequestHeaders()
        .forEach(
            (name, values) -> {
              if (!HOP_HEADERS.contains(name.toLowerCase(java.util.Locale.ROOT))) {
                values.forEach(v -> request.header(name, v));
              }
            });
    HttpResponse<byte[]> response =
        http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    response
        .headers()
        .map()
        .forEach(
            (name, values) -> {
              if (!HOP_HEADERS.contains(name.toLowerCase(java.util.Locale.ROOT))
                  && !name.startsWith(":")) {
                ex.getResponseHeaders().put(name, values);
              }
            });
    byte[] bytes = response.body();
    ex.sendResponseHeaders(response.statusCode(), bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      ex.getResponseBody().write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    http.shutdownNow();
  }
}
