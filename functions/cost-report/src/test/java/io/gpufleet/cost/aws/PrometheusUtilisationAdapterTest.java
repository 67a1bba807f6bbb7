package io.gpufleet.cost.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.sun.net.httpserver.HttpServer;
import io.gpufleet.cost.model.ReportWindow;
import io.gpufleet.cost.model.Utilisation;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * The Prometheus adapter against a local HTTP server speaking the Prometheus HTTP API ({@code GET
 * /api/v1/query}, {"status":"success","data":{"resultType":"vector","result":[...]}}) with DCGM
 * exporter, vLLM and TGI series shaped as those exporters label them.
 */
class PrometheusUtilisationAdapterTest {
  HttpServer server;
  final List<String> queries = new CopyOnWriteArrayList<>();
  final Map<String, String> answers = new ConcurrentHashMap<>();
  final ReportWindow window =
      new ReportWindow(
          "24h", Instant.parse("2026-11-29T02:00:00Z"), Instant.parse("2026-11-30T02:00:00Z"));

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/prom/api/v1/query",
        ex -> {
          String raw = ex.getRequestURI().getRawQuery();
          String q = null;
          String time = null;
          for (String kv : raw.split("&")) {
            String[] p = kv.split("=", 2);
            if (p[0].equals("query")) {
              q = URLDecoder.decode(p[1], StandardCharsets.UTF_8);
            } else if (p[0].equals("time")) {
              time = p[1];
            }
          }
          queries.add(q + " @" + time);
          String body =
              "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}";
          int code = 200;
          for (var e : answers.entrySet()) {
            if (q.contains(e.getKey())) {
              body = e.getValue();
              code = body.contains("\"error\"") ? 400 : 200;
            }
          }
          byte[] b = body.getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().add("Content-Type", "application/json");
          ex.sendResponseHeaders(code, b.length);
          ex.getResponseBody().write(b);
          ex.close();
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  PrometheusUtilisationAdapter adapter() {
    return new PrometheusUtilisationAdapter(
        URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/prom/"),
        HttpClient.newHttpClient(),
        Optional.empty());
  }

  static String vector(String... series) {
    return "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
        + String.join(",", series)
        + "]}}";
  }

  static String sample(String labels, String value) {
    return "{\"metric\":{" + labels + "},\"value\":[1764468000,\"" + value + "\"]}";
  }

  @Test
  void shouldReadNodeAndPodUtilisationAndTokensOverTheWindow() {
    answers.put(
        "avg by (Hostname,hostname,node,kubernetes_node) (avg_over_time(DCGM_FI_DEV_GPU_UTIL",
        vector(
            sample("\"Hostname\":\"ip-10-0-1-11.ec2.internal\"", "87.5"),
            sample("\"hostname\":\"ip-10-0-2-21.ec2.internal\"", "22")));
    answers.put(
        "avg by (Hostname,hostname,node,kubernetes_node) (avg_over_time(DCGM_FI_PROF_GR_ENGINE_ACTIVE",
        // the query multiplies the 0..1 ratio by 100: Prometheus answers in percent
        vector(
            sample("\"Hostname\":\"ip-10-0-1-11.ec2.internal\"", "90"),
            sample("\"Hostname\":\"ip-10-0-1-13.ec2.internal\"", "41")));
    answers.put(
        "avg by (exported_namespace,exported_pod,namespace,pod) (avg_over_time(DCGM_FI_DEV_GPU_UTIL",
        vector(
            sample(
                "\"exported_namespace\":\"training\",\"exported_pod\":\"llm-finetune-0\","
                    + "\"namespace\":\"gpu-operator\",\"pod\":\"dcgm-exporter-x1\"",
                "91"),
            sample("\"namespace\":\"inference\",\"pod\":\"vllm-0\"", "35")));
    answers.put(
        "vllm:generation_tokens_total",
        vector(
            sample(
                "\"model_name\":\"llama-3.1-70b\",\"namespace\":\"inference\",\"pod\":\"vllm-0\"",
                "1.25e+08")));
    answers.put(
        "tgi_request_generated_tokens_sum", vector(sample("\"namespace\":\"chat\"", "4000000")));

    Utilisation u = adapter().read(window, List.of());

    assertThat(u.source()).isEqualTo("prometheus");
    assertThat(u.nodePercent())
        .containsEntry("ip-10-0-1-11.ec2.internal", 87.5)
        .containsEntry("ip-10-0-2-21.ec2.internal", 22.0);
    // MIG node: no GPU_UTIL, graphics engine activity instead
    assertThat(u.nodePercent().get("ip-10-0-1-13.ec2.internal")).isCloseTo(41.0, within(1e-9));
    assertThat(u.notes()).anyMatch(n -> n.contains("DCGM_FI_PROF_GR_ENGINE_ACTIVE"));
    assertThat(u.podPercent())
        .containsEntry("training/llm-finetune-0", 91.0)
        .containsEntry("inference/vllm-0", 35.0);
    assertThat(u.tokens())
        .containsExactlyInAnyOrder(
            new Utilisation.Tokens("inference", "vllm-0", "llama-3.1-70b", "vllm", 1.25e8),
            new Utilisation.Tokens("chat", null, "(TGI: no model label)", "tgi", 4e6));
    assertThat(queries)
        .allMatch(q -> q.endsWith("@" + window.end().getEpochSecond()))
        .allMatch(q -> q.contains("[86400s]"));
  }

  @Test
  void shouldSayWhatIsMissingWhenTheServerHasNoDcgmSeries() {
    Utilisation u = adapter().read(window, List.of());
    assertThat(u.nodePercent()).isEmpty();
    assertThat(u.tokens()).isEmpty();
    assertThat(u.notes())
        .contains("no DCGM_FI_DEV_GPU_UTIL or DCGM_FI_PROF_GR_ENGINE_ACTIVE series");
  }

  @Test
  void shouldFailWithThePrometheusErrorWhenAQueryIsRejected() {
    answers.put(
        "DCGM_FI_DEV_GPU_UTIL",
        "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"parse error\"}");
    assertThatThrownBy(() -> adapter().read(window, List.of()))
        .hasMessageContaining("HTTP 400")
        .hasMessageContaining("bad_data: parse error");
  }

  @Test
  void shouldSignAmazonManagedPrometheusQueriesWithSigV4ForTheApsService() {
    URI amp =
        URI.create(
            "https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-1234/api/v1/query?query=up");
    assertThat(PrometheusUtilisationAdapter.ampRegion(amp)).contains("us-west-2");
    assertThat(
            PrometheusUtilisationAdapter.ampRegion(URI.create("http://prometheus.monitoring:9090")))
        .isEmpty();
    var adapter =
        new PrometheusUtilisationAdapter(
            URI.create("https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-1234"),
            HttpClient.newHttpClient(),
            Optional.of(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDEXAMPLE", "s"))));

    var headers = adapter.signedHeaders(amp);

    assertThat(headers.get("Authorization").get(0))
        .startsWith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")
        .contains("/us-west-2/aps/aws4_request");
    assertThat(headers).containsKey("X-Amz-Date");
  }
}
