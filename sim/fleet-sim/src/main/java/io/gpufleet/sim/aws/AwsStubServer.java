package io.gpufleet.sim.aws;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * A local HTTP server that answers AWS API calls the emulators lack (Pricing GetProducts, Service
 * Quotas for EC2 codes, GetSpotPlacementScores, Capacity Block offerings, ...) so the real SDK
 * clients marshal, page and retry against it.
 *
 * <p>Three wire protocols are routed: JSON protocols by the {@code X-Amz-Target} header (register
 * {@code "AWSPriceListService.GetProducts"}), the EC2/query protocol by the form parameter {@code
 * Action} (register {@code "GetSpotPlacementScores"}), and rest-json by method and path (any
 * request that is not a {@code POST /}: register {@code "GET /clusters/prod"}). The region of a
 * call is read from the SigV4 credential scope, so one server can play every region. An operation
 * without a handler is an error (fail by default), faults can be queued per operation, latency
 * added per call, and every request is recorded.
 */
public final class AwsStubServer implements AutoCloseable {

  /** One received call. {@code params} holds the decoded form fields of a query-protocol call. */
  public record Call(
      String operation,
      String region,
      Map<String, String> headers,
      String body,
      Map<String, String> params) {

    /** A form parameter of a query-protocol call, if present. */
    public Optional<String> param(String name) {
      return Optional.ofNullable(params.get(name));
    }
  }

  /** What a handler answers. */
  public record Reply(int status, String contentType, String body) {

    public static Reply json(String body) {
      return new Reply(200, "application/x-amz-json-1.1", body);
    }

    public static Reply xml(String body) {
      return new Reply(200, "text/xml;charset=UTF-8", body);
    }
  }

  /**
   * An error as the real API answers it: HTTP status and error code. The stub shapes the body by
   * protocol: EC2/query {@code <Response><Errors><Error><Code>…} XML, JSON {@code
   * {"__type":…,"message":…}}.
   */
  public record AwsFault(int status, String code) {
    /** EC2 throttling: HTTP 503 with RequestLimitExceeded (the SDK retries it with backoff). */
    public static final AwsFault EC2_THROTTLED = new AwsFault(503, "RequestLimitExceeded");

    /** EC2 without the IAM permission: HTTP 403 UnauthorizedOperation. */
    public static final AwsFault EC2_UNAUTHORIZED = new AwsFault(403, "UnauthorizedOperation");

    /** GetSpotPlacementScores past the 24-hour cap on new request configurations. */
    public static final AwsFault SPOT_MAX_CONFIG = new AwsFault(400, "MaxConfigLimitExceeded");

    /** Service Quotas throttling (JSON protocol): 400 TooManyRequestsException. */
    public static final AwsFault QUOTAS_THROTTLED = new AwsFault(400, "TooManyRequestsException");

    /** Pricing throttling (JSON protocol): 400 ThrottlingException. */
    public static final AwsFault PRICING_THROTTLED = new AwsFault(400, "ThrottlingException");

    /** A JSON-protocol service without the IAM permission: 400 AccessDeniedException. */
    public static final AwsFault JSON_ACCESS_DENIED = new AwsFault(400, "AccessDeniedException");
  }

  private static final Pattern SCOPE_REGION =
      Pattern.compile("Credential=[^/]+/\\d{8}/([a-z0-9-]+)/");

  private final HttpServer server;
  private final Map<String, Function<Call, Reply>> handlers = new ConcurrentHashMap<>();
  private final Map<String, Deque<Fault>> faults = new ConcurrentHashMap<>();
  private final Map<String, Duration> latency = new ConcurrentHashMap<>();
  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private volatile Duration defaultLatency = Duration.ZERO;

  private record Fault(int status, String code, String message, Optional<String> region) {}

  private AwsStubServer(HttpServer server) {
    this.server = server;
  }

  /** Starts a server on a free loopback port. */
  public static AwsStubServer start() {
    try {
      // A deep accept queue: one stub plays every region, so a fan-out opens 100+ connections at
      // once; with the default backlog (50) the overflow's SYNs are dropped and retried after 1 s.
      return serve(
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the AWS stub server", e);
    }
  }

  /**
   * Starts a server on a free loopback port that speaks HTTPS with {@code tls}'s certificate, as
   * AWS endpoints do: its {@link #endpoint()} is {@code https://localhost:PORT} (the name the
   * certificate must carry), and a client reaches it only if it trusts that certificate.
   */
  public static AwsStubServer startHttps(javax.net.ssl.SSLContext tls) {
    return startHttps(tls, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
  }

  /**
   * The same on {@code address}: e.g. one loopback address of its own on port 443, where a client
   * led there by a host name (an AWS endpoint's, through a hosts file) connects as to AWS. Its
   * {@link #endpoint()} names the address unless it is the usual loopback one ({@code localhost}).
   */
  public static AwsStubServer startHttps(javax.net.ssl.SSLContext tls, InetSocketAddress address) {
    try {
      var server = com.sun.net.httpserver.HttpsServer.create(address, 1024);
      server.setHttpsConfigurator(new com.sun.net.httpserver.HttpsConfigurator(tls));
      return serve(server);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the AWS stub server", e);
    }
  }

  private static AwsStubServer serve(HttpServer server) {
    var stub = new AwsStubServer(server);
    server.createContext("/", stub::handle);
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    server.start();
    return stub;
  }

  /** The endpoint to hand to SDK clients ({@code endpointOverride} / {@code AWS_ENDPOINT_URL}). */
  public URI endpoint() {
    var address = server.getAddress();
    if (server instanceof com.sun.net.httpserver.HttpsServer) {
      String host =
          address.getAddress().equals(InetAddress.getLoopbackAddress())
              ? "localhost"
              : address.getAddress().getHostAddress();
      return URI.create("https://" + host + ":" + address.getPort());
    }
    return URI.create("http://" + address.getHostString() + ":" + address.getPort());
  }

  /**
   * Clients of {@code region} that call this server, with fixed test credentials (the stub reads
   * only the region of their signature).
   */
  public io.gpufleet.core.aws.AwsClients clients(software.amazon.awssdk.regions.Region region) {
    return new io.gpufleet.core.aws.AwsClients(
        region,
        software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
            software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(
                "AKIDSTUB", "secret")),
        Optional.of(endpoint()));
  }

  /** Answers {@code operation} (an X-Amz-Target value or a query Action) with {@code handler}. */
  public AwsStubServer on(String operation, Function<Call, Reply> handler) {
    handlers.put(operation, handler);
    return this;
  }

  /** The next {@code times} calls of {@code operation} fail with this AWS error code. */
  public AwsStubServer failNext(String operation, int times, int status, String code) {
    return failNext(operation, times, status, code, Optional.empty());
  }

  /** The next {@code times} calls of {@code operation} fail as AWS answers {@code fault}. */
  public AwsStubServer failNext(String operation, int times, AwsFault fault) {
    return failNext(operation, times, fault.status(), fault.code());
  }

  /** As {@link #failNext(String, int, int, String)}, only for calls signed for {@code region}. */
  public AwsStubServer failNextIn(
      String region, String operation, int times, int status, String code) {
    return failNext(operation, times, status, code, Optional.of(region));
  }

  private AwsStubServer failNext(
      String operation, int times, int status, String code, Optional<String> region) {
    var queue = faults.computeIfAbsent(operation, k -> new ArrayDeque<>());
    synchronized (queue) {
      for (int i = 0; i < times; i++) {
        queue.add(new Fault(status, code, "injected fault " + code, region));
      }
    }
    return this;
  }

  /** Every call waits this long before it is answered. */
  public AwsStubServer latency(Duration perCall) {
    this.defaultLatency = perCall;
    return this;
  }

  /** Calls of {@code operation} wait this long (overrides the default latency). */
  public AwsStubServer latency(String operation, Duration perCall) {
    latency.put(operation, perCall);
    return this;
  }

  /** Every call received so far, in arrival order. */
  public List<Call> calls() {
    return List.copyOf(calls);
  }

  /** The calls of one operation. */
  public List<Call> calls(String operation) {
    return calls.stream().filter(c -> c.operation().equals(operation)).toList();
  }

  /** Forgets handlers, faults, latency and recorded calls. */
  public void reset() {
    handlers.clear();
    faults.clear();
    latency.clear();
    calls.clear();
    defaultLatency = Duration.ZERO;
  }

  @Override
  public void close() {
    server.stop(0);
    ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      var body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      var headers = new LinkedHashMap<String, String>();
      exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(), v.get(0)));
      var target = headers.get("x-amz-target");
      var path = exchange.getRequestURI().getRawPath();
      var rest =
          target == null && !(exchange.getRequestMethod().equals("POST") && path.equals("/"));
      var query = target == null && !rest;
      var params = query ? formParams(body) : Map.<String, String>of();
      var operation =
          rest
              ? exchange.getRequestMethod() + " " + path
              : query ? params.getOrDefault("Action", "") : target;
      var region = regionOf(headers.get("authorization"));
      var call = new Call(operation, region, Map.copyOf(headers), body, params);
      calls.add(call);
      pause(latency.getOrDefault(operation, defaultLatency));

      var fault = nextFault(operation, region);
      Reply reply;
      if (fault.isPresent()) {
        reply = error(query, fault.get().status(), fault.get().code(), fault.get().message());
      } else {
        var handler = handlers.get(operation);
        reply =
            handler == null
                ? error(query, 400, "UnknownOperationException", "no stub for " + operation)
                : handler.apply(call);
      }
      var bytes = reply.body().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", reply.contentType());
      exchange.getResponseHeaders().set("x-amzn-RequestId", "stub-" + calls.size());

      exchange.sendResponseHeaders(reply.status(), bytes.length == 0 ? -1 : bytes.length);
      if (bytes.length > 0) {
        exchange.getResponseBody().write(bytes);
      }
    } catch (RuntimeException e) {
      // A handler bug must show up in the test, not as a hung client.
      var bytes = ("stub handler failed: " + e).getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(500, bytes.length);
      exchange.getResponseBody().write(bytes);
    }
  }

  private Optional<Fault> nextFault(String operation, String region) {
    var queue = faults.get(operation);
    if (queue == null) {
      return Optional.empty();
    }
    synchronized (queue) {
      for (var it = queue.iterator(); it.hasNext(); ) {
        var fault = it.next();
        if (fault.region().isEmpty() || fault.region().get().equals(region)) {
          it.remove();
          return Optional.of(fault);
        }
      }
    }
    return Optional.empty();
  }

  private static Reply error(boolean query, int status, String code, String message) {
    if (query) {
      return new Reply(
          status,
          "text/xml;charset=UTF-8",
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response><Errors><Error><Code>"
              + code
              + "</Code><Message>"
              + message
              + "</Message></Error></Errors><RequestID>stub</RequestID></Response>");
    }
    return new Reply(
        status,
        "application/x-amz-json-1.1",
        "{\"__type\":\"" + code + "\",\"message\":\"" + message + "\"}");
  }

  static String regionOf(String authorization) {
    if (authorization == null) {
      return "";
    }
    var m = SCOPE_REGION.matcher(authorization);
    return m.find() ? m.group(1) : "";
  }

  static Map<String, String> formParams(String body) {
    var out = new LinkedHashMap<String, String>();
    if (body.isBlank()) {
      return out;
    }
    for (var pair : body.split("&")) {
      int eq = pair.indexOf('=');
      var key = eq < 0 ? pair : pair.substring(0, eq);
      var value = eq < 0 ? "" : pair.substring(eq + 1);
      out.put(
          URLDecoder.decode(key, StandardCharsets.UTF_8),
          URLDecoder.decode(value, StandardCharsets.UTF_8));
    }
    return out;
  }

  private static void pause(Duration d) {
    if (d.isZero()) {
      return;
    }
    try {
      TimeUnit.NANOSECONDS.sleep(d.toNanos());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Values of repeated query parameters such as {@code InstanceType.1, InstanceType.2}. */
  public static List<String> listParam(Call call, String prefix) {
    var out = new ArrayList<String>();
    for (int i = 1; ; i++) {
      var v = call.params().get(prefix + "." + i);
      if (v == null) {
        return out;
      }
      out.add(v);
    }
  }
}
