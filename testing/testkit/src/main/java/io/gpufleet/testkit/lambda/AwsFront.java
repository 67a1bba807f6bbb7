package io.gpufleet.testkit.lambda;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A recording front for an AWS emulator (moto server): the function's {@code AWS_ENDPOINT_URL}
 * points here, every request is passed on unchanged and recorded with the access key id and service
 * of its SigV4 {@code Authorization} header, so a test proves which credentials signed each call
 * and when. One rewrite: EKS DescribeCluster answers carry the emulator's made-up {@code
 * https://…eks.amazonaws.com} endpoint, replaced by the simulated API server's URL so the
 * function's cluster client reaches a server that exists. In front of a Kubernetes API server it
 * records the same for EKS bearer tokens (the key that presigned the token's STS URL).
 */
public final class AwsFront implements AutoCloseable {
  private static final Pattern CREDENTIAL =
      Pattern.compile("Credential=([^/]+)/\\d{8}/([^/]+)/([^/]+)/aws4_request");
  private static final Pattern DESCRIBE_CLUSTER = Pattern.compile("^/clusters/[^/]+$");
  private static final Set<String> HOP_HEADERS =
      Set.of("host", "content-length", "connection", "transfer-encoding", "expect", "upgrade");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String EKS_TOKEN = "k8s-aws-v1.";
  private static final String CLUSTER_CA = clusterCa();

  /** One signed call: who signed it (access key id), for which service and region, and what. */
  public record Call(
      Instant at,
      String accessKeyId,
      String service,
      String region,
      String method,
      String path,
      String target,
      int status) {}

  private final HttpServer server;
  private final URI upstream;
  private final String clusterEndpoint;
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final List<Call> calls = new CopyOnWriteArrayList<>();

  private AwsFront(URI upstream, String clusterEndpoint) throws IOException {
    this.upstream = upstream;
    this.clusterEndpoint = clusterEndpoint;
    this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    server.createContext("/", this::handle);
    server.start();
  }

  /** In front of {@code upstream}; {@code clusterEndpoint} replaces EKS cluster endpoints. */
  public static AwsFront start(URI upstream, String clusterEndpoint) {
    try {
      return new AwsFront(upstream, clusterEndpoint);
    } catch (IOException e) {
      throw new IllegalStateException("cannot start the AWS front", e);
    }
  }

  /** A self-signed CA certificate (test fixture) as DescribeCluster's base64 PEM. */
  private static String clusterCa() {
    try (var in = AwsFront.class.getResourceAsStream("eks-cluster-ca.pem")) {
      if (in == null) {
        throw new IllegalStateException("eks-cluster-ca.pem missing from the testkit");
      }
      return java.util.Base64.getEncoder().encodeToString(in.readAllBytes());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  public List<Call> calls() {
    return List.copyOf(calls);
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      byte[] body = ex.getRequestBody().readAllBytes();
      String auth =
          Optional.ofNullable(ex.getRequestHeaders().getFirst("Authorization")).orElse("");
      if (auth.startsWith("Bearer " + EKS_TOKEN)) {
        // an EKS token: a presigned STS GetCallerIdentity URL, whose credential scope names the
        // access key that signed it
        String url =
            new String(
                java.util.Base64.getUrlDecoder().decode(auth.substring(7 + EKS_TOKEN.length())),
                java.nio.charset.StandardCharsets.UTF_8);
        auth =
            "Credential="
                + java.net.URLDecoder.decode(
                    url.replaceAll(".*[?&]X-Amz-Credential=([^&]*).*", "$1"),
                    java.nio.charset.StandardCharsets.UTF_8);
      }
      Matcher m = CREDENTIAL.matcher(auth);
      boolean signed = m.find();
      var request =
          HttpRequest.newBuilder(upstream.resolve(ex.getRequestURI().toString()))
              .method(ex.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
      ex.getRequestHeaders()
          .forEach(
              (name, values) -> {
                if (!HOP_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                  values.forEach(v -> request.header(name, v));
                }
              });
      HttpResponse<byte[]> response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
      String path = ex.getRequestURI().getPath();
      String target = ex.getRequestHeaders().getFirst("X-Amz-Target");
      if (target == null) {
        target = action(ex.getRequestURI().getRawQuery(), new String(body));
      }
      calls.add(
          new Call(
              Instant.now(),
              signed ? m.group(1) : "(unsigned)",
              signed ? m.group(3) : "",
              signed ? m.group(2) : "",
              ex.getRequestMethod(),
              path,
              target,
              response.statusCode()));
      byte[] out = response.body();
      if (signed
          && "eks".equals(m.group(3))
          && "GET".equals(ex.getRequestMethod())
          && DESCRIBE_CLUSTER.matcher(path).matches()
          && response.statusCode() == 200) {
        JsonNode tree = JSON.readTree(out);
        var cluster = (ObjectNode) tree.get("cluster");
        cluster.put("endpoint", clusterEndpoint);
        // moto answers a random 1400-character string where EKS puts the base64 PEM of the
        // cluster's CA; a client that parses it fails now and then (random bytes that look like
        // DER). EKS always answers a certificate, so the front does too.
        cluster.putObject("certificateAuthority").put("data", CLUSTER_CA);
        out = JSON.writeValueAsBytes(tree);
      }
      response
          .headers()
          .map()
          .forEach(
              (name, values) -> {
                if (!HOP_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                  ex.getResponseHeaders().put(name, values);
                }
              });
      ex.sendResponseHeaders(response.statusCode(), out.length == 0 ? -1 : out.length);
      if (out.length > 0) {
        ex.getResponseBody().write(out);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static String action(String query, String body) {
    for (String source : new String[] {query, body}) {
      if (source == null) {
        continue;
      }
      for (String part : source.split("&")) {
        if (part.startsWith("Action=")) {
          return part.substring(7);
        }
      }
    }
    return null;
  }

  @Override
  public void close() {
    server.stop(0);
    http.shutdownNow();
  }
}
