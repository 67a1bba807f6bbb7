package io.gpufleet.cost.aws;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import io.gpufleet.cost.UtilisationPort;
import io.gpufleet.cost.model.NodeRecord;
import io.gpufleet.cost.model.ReportWindow;
import io.gpufleet.cost.model.Utilisation;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;

/**
 * GPU utilisation and output tokens from a Prometheus query API ({@code /api/v1/query}, instant
 * queries evaluated at the window's end over the window's length):
 *
 * <ul>
 *   <li>per node: {@code DCGM_FI_DEV_GPU_UTIL} averaged over the node's GPUs, by the exporter's
 *       host label ({@code Hostname} up to dcgm-exporter 4.x, {@code hostname} after; {@code node}
 *       / {@code kubernetes_node} from relabelling); nodes without it (MIG: GPU_UTIL is not
 *       reported) from {@code DCGM_FI_PROF_GR_ENGINE_ACTIVE} × 100;
 *   <li>per pod: the same metrics by {@code exported_namespace}/{@code exported_pod} (the workload,
 *       when Prometheus scraped the exporter) else {@code namespace}/{@code pod};
 *   <li>tokens: {@code increase(vllm:generation_tokens_total)} by model_name, namespace, pod;
 *       {@code increase(tgi_request_generated_tokens_sum)} by namespace, pod (TGI has no model
 *       label).
 * </ul>
 *
 * An Amazon Managed Service for Prometheus workspace URL ({@code
 * https://aps-workspaces.REGION.amazonaws.com/workspaces/ID}) is signed with SigV4 (service {@code
 * aps}, the SDK's signer); any other URL is queried as is.
 */
public final class PrometheusUtilisationAdapter implements UtilisationPort {
  private static final Pattern AMP =
      Pattern.compile("aps-workspaces\\.([a-z0-9-]+)\\.amazonaws\\.com(\\.cn)?");
  private static final List<String> HOST_LABELS =
      List.of("Hostname", "hostname", "node", "kubernetes_node");

  private final URI base;
  private final HttpClient http;
  private final Optional<AwsCredentialsProvider> credentials;
  private final AwsV4HttpSigner signer = AwsV4HttpSigner.create();

  public PrometheusUtilisationAdapter(
      URI base, HttpClient http, Optional<AwsCredentialsProvider> credentials) {
    String b = base.toString();
    this.base = URI.create(b.endsWith("/") ? b.substring(0, b.length() - 1) : b);
    this.http = http;
    this.credentials = credentials;
  }

  /** The AMP region of a workspace URL, if it is one. */
  static Optional<String> ampRegion(URI uri) {
    var m = AMP.matcher(uri.getHost() == null ? "" : uri.getHost());
    return m.matches() ? Optional.of(m.group(1)) : Optional.empty();
  }

  @Override
  public Utilisation read(ReportWindow w, List<NodeRecord> gpuNodes) {
    long seconds = Math.max(60, w.length().toSeconds());
    String range = "[" + seconds + "s]";
    long at = w.end().getEpochSecond();
    var notes = new ArrayList<String>();

    String byHost = "Hostname,hostname,node,kubernetes_node";
    var nodes = new HashMap<String, Double>();
    for (var r :
        query("avg by (" + byHost + ") (avg_over_time(DCGM_FI_DEV_GPU_UTIL" + range + "))", at)) {
      host(r).ifPresent(h -> nodes.put(h, value(r)));
    }
    int fromGr = 0;
    for (var r :
        query(
            "avg by ("
                + byHost
                + ") (avg_over_time(DCGM_FI_PROF_GR_ENGINE_ACTIVE"
                + range
                + ")) * 100",
            at)) {
      var h = host(r);
      if (h.isPresent() && !nodes.containsKey(h.get())) {
        nodes.put(h.get(), value(r));
        fromGr++;
      }
    }
    if (fromGr > 0) {
      notes.add(fromGr + " nodes from DCGM_FI_PROF_GR_ENGINE_ACTIVE (MIG: no GPU_UTIL)");
    }
    if (nodes.isEmpty()) {
      notes.add("no DCGM_FI_DEV_GPU_UTIL or DCGM_FI_PROF_GR_ENGINE_ACTIVE series");
    }

    String byPod = "exported_namespace,exported_pod,namespace,pod";
    var pods = new HashMap<String, Double>();
    for (String metric : List.of("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_PROF_GR_ENGINE_ACTIVE")) {
      String scale = metric.contains("PROF") ? " * 100" : "";
      for (var r :
          query("avg by (" + byPod + ") (avg_over_time(" + metric + range + "))" + scale, at)) {
        podKey(r.path("metric")).ifPresent(k -> pods.putIfAbsent(k, value(r)));
      }
    }

    var tokens = new ArrayList<Utilisation.Tokens>();
    for (var r :
        query(
            "sum by (model_name,"
                + byPod
                + ") (increase(vllm:generation_tokens_total"
                + range
                + "))",
            at)) {
      JsonNode m = r.path("metric");
      var pod = podKey(m);
      String ns = pod.map(p -> p.substring(0, p.indexOf('/'))).orElse(text(m, "namespace"));
      if (ns == null) {
        continue;
      }
      tokens.add(
          new Utilisation.Tokens(
              ns,
              pod.map(p -> p.substring(p.indexOf('/') + 1)).orElse(null),
              text(m, "model_name"),
              "vllm",
              value(r)));
    }
    for (var r :
        query(
            "sum by (" + byPod + ") (increase(tgi_request_generated_tokens_sum" + range + "))",
            at)) {
      JsonNode m = r.path("metric");
      var pod = podKey(m);
      String ns = pod.map(p -> p.substring(0, p.indexOf('/'))).orElse(text(m, "namespace"));
      if (ns == null) {
        continue;
      }
      tokens.add(
          new Utilisation.Tokens(
              ns,
              pod.map(p -> p.substring(p.indexOf('/') + 1)).orElse(null),
              "(TGI: no model label)",
              "tgi",
              value(r)));
    }
    String source = ampRegion(base).isPresent() ? "amazon-managed-prometheus" : "prometheus";
    return new Utilisation(source, nodes, pods, tokens, notes);
  }

  /** The result vector of an instant query; an error answer is an exception naming the query. */
  List<JsonNode> query(String promql, long at) {
    URI uri =
        URI.create(
            base
                + "/api/v1/query?query="
                + URLEncoder.encode(promql, StandardCharsets.UTF_8).replace("+", "%20")
                + "&time="
                + at);
    var builder = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET();
    signedHeaders(uri).forEach((k, v) -> v.forEach(x -> builder.header(k, x)));
    HttpResponse<String> resp;
    try {
      resp = http.send(builder.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("Prometheus " + base.getHost() + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
    JsonNode body;
    try {
      body = Json.MAPPER.readTree(resp.body());
    } catch (IOException e) {
      throw new IllegalStateException(
          "Prometheus answered HTTP " + resp.statusCode() + " with a body that is not JSON");
    }
    if (resp.statusCode() != 200 || !"success".equals(body.path("status").asText())) {
      throw new IllegalStateException(
          "Prometheus query failed (HTTP "
              + resp.statusCode()
              + ", "
              + body.path("errorType").asText("?")
              + ": "
              + body.path("error").asText("")
              + ")");
    }
    var out = new ArrayList<JsonNode>();
    body.path("data").path("result").forEach(out::add);
    return out;
  }

  Map<String, List<String>> signedHeaders(URI uri) {
    var region = ampRegion(uri);
    if (region.isEmpty() || credentials.isEmpty()) {
      return Map.of();
    }
    var req = SdkHttpRequest.builder().method(SdkHttpMethod.GET).uri(uri).build();
    var signed =
        signer.sign(
            r ->
                r.identity(credentials.get().resolveCredentials())
                    .request(req)
                    .putProperty(AwsV4HttpSigner.REGION_NAME, region.get())
                    .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, "aps"));
    var out = new HashMap<String, List<String>>();
    signed
        .request()
        .headers()
        .forEach(
            (k, v) -> {
              if (!k.equalsIgnoreCase("host")) {
                out.put(k, v);
              }
            });
    return out;
  }

  private static Optional<String> host(JsonNode r) {
    JsonNode m = r.path("metric");
    for (String l : HOST_LABELS) {
      String v = text(m, l);
      if (v != null) {
        return Optional.of(v);
      }
    }
    return Optional.empty();
  }

  private static Optional<String> podKey(JsonNode m) {
    String ns = text(m, "exported_namespace");
    String pod = text(m, "exported_pod");
    if (ns == null || pod == null) {
      ns = text(m, "namespace");
      pod = text(m, "pod");
    }
    return ns == null || pod == null ? Optional.empty() : Optional.of(ns + "/" + pod);
  }

  private static String text(JsonNode m, String label) {
    String v = m.path(label).asText("");
    return v.isEmpty() ? null : v;
  }

  private static double value(JsonNode r) {
    JsonNode v = r.path("value");
    try {
      double d = Double.parseDouble(v.path(1).asText("NaN"));
      return Double.isFinite(d) ? d : 0;
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
