package io.gpufleet.core.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.gpufleet.core.json.Json;
import io.gpufleet.testkit.aws.contract.AwsJsonModelInspector;
import io.gpufleet.testkit.aws.contract.BotocoreModels;
import io.gpufleet.testkit.aws.contract.ContractViolations;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;

/**
 * The JSON-protocol client against a scripted server (what moto cannot be made to do: throttling,
 * server errors, error documents of each shape), and the model check every request goes through.
 */
class AwsJsonTest {
  @Nested
  class AgainstAScriptedServer {
    HttpServer server;
    final Deque<String[]> script = new ArrayDeque<>();
    final List<JsonNode> bodies = new CopyOnWriteArrayList<>();
    final List<Map<String, List<String>>> headers = new CopyOnWriteArrayList<>();
    final List<Duration> sleeps = new CopyOnWriteArrayList<>();
    AwsJson pricing;

    @BeforeEach
    void start() throws IOException {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      server.createContext(
          "/",
          x -> {
            bodies.add(Json.MAPPER.readTree(x.getRequestBody().readAllBytes()));
            headers.add(Map.copyOf(x.getRequestHeaders()));
            String[] reply = script.isEmpty() ? new String[] {"500", "{}", ""} : script.poll();
            byte[] body = reply[1].getBytes(StandardCharsets.UTF_8);
            if (!reply[2].isEmpty()) {
              x.getResponseHeaders().add("x-amzn-ErrorType", reply[2]);
            }
            x.getResponseHeaders().add("x-amzn-RequestId", "req-" + bodies.size());
            x.sendResponseHeaders(Integer.parseInt(reply[0]), body.length);
            x.getResponseBody().write(body);
            x.close();
          });
      server.start();
      pricing =
          new AwsJson(
              AwsJson.PRICING,
              ServiceWire.of(
                  URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/"),
                  Region.US_EAST_1,
                  AwsJson.PRICING.signingName(),
                  StaticCredentialsProvider.create(
                      AwsBasicCredentials.create("AKIDTEST", "secret")),
                  UrlConnectionHttpClient.create(),
                  new AwsRetry(
                      3, Duration.ofMillis(100), Duration.ofSeconds(20), sleeps::add, () -> 1.0)));
    }

    @AfterEach
    void stop() {
      server.stop(0);
    }

    private static com.fasterxml.jackson.databind.node.ObjectNode products() {
      var in = AwsJson.input().put("ServiceCode", "AmazonEC2").put("MaxResults", 100);
      in.putArray("Filters")
          .addObject()
          .put("Type", "TERM_MATCH")
          .put("Field", "instanceType")
          .put("Value", "p5.48xlarge");
      return in;
    }

    @Test
    void shouldSignAndTargetTheOperationAndReturnTheAnswer() {
      script.add(new String[] {"200", "{\"PriceList\":[\"{}\"],\"FormatVersion\":\"aws_v1\"}", ""});

      JsonNode answer = pricing.call("GetProducts", products());

      assertThat(answer.path("PriceList").get(0).asText()).isEqualTo("{}");
      var sent = headers.get(0);
      assertThat(sent.get("X-amz-target")).containsExactly("AWSPriceListService.GetProducts");
      assertThat(sent.get("Content-type")).containsExactly("application/x-amz-json-1.1");
      assertThat(sent.get("Authorization").get(0))
          .startsWith("AWS4-HMAC-SHA256 Credential=AKIDTEST/")
          .contains("/us-east-1/pricing/aws4_request");
      assertThat(bodies.get(0).path("Filters").get(0).path("Field").asText())
          .isEqualTo("instanceType");
    }

    @Test
    void shouldRetryThrottlingAndServerErrorsThenGiveUpWithCodeMessageAndRequestId() {
      script.add(
          new String[] {"400", "{\"__type\":\"ThrottlingException\",\"message\":\"slow\"}", ""});
      script.add(new String[] {"503", "", ""});
      script.add(
          new String[] {
            "400",
            "{\"__type\":\"com.amazon.coral.service#ThrottlingException\",\"Message\":\"slower\"}",
            ""
          });

      assertThatThrownBy(() -> pricing.call("GetProducts", products()))
          .isInstanceOfSatisfying(
              AwsCallException.class,
              e -> {
                assertThat(e.code()).isEqualTo("ThrottlingException");
                assertThat(e.awsMessage()).isEqualTo("slower");
                assertThat(e.requestId()).isEqualTo("req-3");
                assertThat(e.status()).isEqualTo(400);
                assertThat(e.service()).isEqualTo("Pricing");
              });
      assertThat(bodies).hasSize(3);
      assertThat(sleeps).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
    }

    @Test
    void shouldNotRetryARefusalAndTakeTheCodeFromTheHeaderWhenTheBodyHasNone() {
      script.add(
          new String[] {
            "400", "{\"message\":\"bad filter\"}", "InvalidParameterException:http://internal/"
          });

      assertThatThrownBy(() -> pricing.call("GetProducts", products()))
          .isInstanceOfSatisfying(
              AwsCallException.class,
              e -> {
                assertThat(e.code()).isEqualTo("InvalidParameterException");
                assertThat(e.awsMessage()).isEqualTo("bad filter");
                assertThat(e.retryable()).isFalse();
              });
      assertThat(bodies).hasSize(1);
      assertThat(sleeps).isEmpty();
    }

    @Test
    void shouldFollowNextTokenAndRefuseARepeatedOne() {
      script.add(new String[] {"200", "{\"PriceList\":[\"a\"],\"NextToken\":\"t1\"}", ""});
      script.add(new String[] {"200", "{\"PriceList\":[\"b\"]}", ""});
      var seen = new ArrayList<String>();

      pricing.paginate(
          "GetProducts", products(), p -> seen.add(p.path("PriceList").get(0).asText()));

      assertThat(seen).containsExactly("a", "b");
      assertThat(bodies.get(0).has("NextToken")).isFalse();
      assertThat(bodies.get(1).path("NextToken").asText()).isEqualTo("t1");

      script.add(new String[] {"200", "{\"NextToken\":\"x\"}", ""});
      script.add(new String[] {"200", "{\"NextToken\":\"x\"}", ""});
      assertThatThrownBy(() -> pricing.paginate("GetProducts", products(), p -> {}))
          .isInstanceOfSatisfying(
              AwsCallException.class, e -> assertThat(e.code()).isEqualTo("PaginationLoop"));
    }

    @Test
    void shouldRefuseARequestTheModelRefusesBeforeSendingIt() {
      var bad = products().put("MaxResults", "100");

      assertThatThrownBy(() -> pricing.call("GetProducts", bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("GetProductsRequest.MaxResults is a JSON string");
      assertThat(bodies).isEmpty();
      assertThat(ContractViolations.drain()).isNotEmpty();
    }
  }

  @Nested
  class TheModelCheck {
    final BotocoreModels models = BotocoreModels.shared();

    @Test
    void shouldAgreeWithBotocoreOnEveryServiceTheFunctionsCall() {
      for (var service :
          List.of(
              AwsJson.PRICING,
              AwsJson.SERVICE_QUOTAS,
              AwsJson.CLOUDWATCH,
              AwsJson.COST_EXPLORER,
              AwsJson.EVENTBRIDGE,
              AwsJson.SECRETS_MANAGER,
              AwsJson.SSM)) {
        // an operation with no required input: only the metadata is judged
        String op =
            switch (service.serviceId()) {
              case "Pricing" -> "DescribeServices";
              case "Service Quotas" -> "ListServices";
              case "CloudWatch" -> "ListDashboards";
              case "Cost Explorer" -> "GetCostCategories";
              case "EventBridge" -> "ListRules";
              case "SSM" -> "DescribeParameters";
              default -> "ListSecrets";
            };
        var input = AwsJson.input();
        if (op.equals("GetCostCategories")) {
          input.putObject("TimePeriod").put("Start", "2026-11-01").put("End", "2026-12-01");
        }
        assertThat(AwsJsonModelInspector.validate(models, service, op, input))
            .as(service.serviceId())
            .isEmpty();
      }
    }

    @Test
    void shouldNameEachWayARequestBreaksTheModel() {
      var wrongPrefix =
          new AwsJson.Service("Pricing", "api.pricing", "pricing", "AWSPricing", "1.0");
      var in = AwsJson.input().put("ServiceCode", "AmazonEC2").put("Unknown", 1);
      in.putArray("Filters").addObject().put("Type", "TERM_MATCH").put("Field", "x");

      assertThat(AwsJsonModelInspector.validate(models, wrongPrefix, "GetProducts", in))
          .extracting(v -> v.path() + " " + v.problem())
          .anySatisfy(s -> assertThat(s).startsWith("metadata.jsonVersion is '1.1'"))
          .anySatisfy(s -> assertThat(s).startsWith("metadata.targetPrefix"))
          .anySatisfy(s -> assertThat(s).contains("GetProductsRequest.Unknown is not a member"))
          .anySatisfy(s -> assertThat(s).contains("Filters[0].Value is required but missing"));
      assertThat(
              AwsJsonModelInspector.validate(models, AwsJson.PRICING, "GetPrices", AwsJson.input()))
          .extracting(v -> v.problem())
          .containsExactly("is not an operation");
    }
  }

  @Test
  void shouldWriteTimestampsAsEpochSecondsInPlainNotation() throws Exception {
    var whole = AwsJson.input().put("T", AwsJson.timestamp(Instant.parse("2026-11-30T00:00:00Z")));
    var part =
        AwsJson.input().put("T", AwsJson.timestamp(Instant.parse("2026-11-30T00:00:00.250Z")));

    assertThat(Json.MAPPER.writeValueAsString(whole)).isEqualTo("{\"T\":1795996800}");
    assertThat(Json.MAPPER.writeValueAsString(part)).isEqualTo("{\"T\":1795996800.25}");
  }

  @Test
  void shouldFindEachServiceInEachPartitionAndHonourTheOverridesTheSdkHonours() {
    assertThat(
            SignedHttp.endpoint(
                "servicequotas",
                "SERVICE_QUOTAS",
                Region.of("cn-north-1"),
                Optional.empty(),
                Map.of()))
        .hasToString("https://servicequotas.cn-north-1.amazonaws.com.cn/");
    assertThat(AwsJson.SERVICE_QUOTAS.envId()).isEqualTo("SERVICE_QUOTAS");
    assertThat(AwsJson.COST_EXPLORER.envId()).isEqualTo("COST_EXPLORER");
    assertThat(
            SignedHttp.endpoint(
                "monitoring",
                AwsJson.CLOUDWATCH.envId(),
                Region.US_WEST_2,
                Optional.empty(),
                Map.of(
                    "AWS_ENDPOINT_URL_CLOUDWATCH",
                    "http://localhost:5000",
                    "AWS_ENDPOINT_URL",
                    "http://other")))
        .hasToString("http://localhost:5000");
  }
}
