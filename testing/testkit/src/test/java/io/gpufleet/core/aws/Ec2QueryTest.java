package io.gpufleet.core.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.gpufleet.testkit.aws.contract.BotocoreModels;
import io.gpufleet.testkit.aws.contract.ContractViolations;
import io.gpufleet.testkit.aws.contract.Ec2QueryModelInspector;
import io.gpufleet.testkit.aws.contract.ServiceModel;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
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
 * The EC2 Query client against a scripted server for what moto cannot be made to do (throttling,
 * server errors, hostile XML), the model check every request of every test goes through, and the
 * endpoints. {@link Ec2QueryMotoTest} holds it to moto's real EC2 answers.
 */
class Ec2QueryTest {
  @Nested
  class AgainstAScriptedServer {
    HttpServer server;
    final Deque<String[]> script = new ArrayDeque<>();
    final List<Map<String, String>> requests = new CopyOnWriteArrayList<>();
    final List<String> authorizations = new CopyOnWriteArrayList<>();
    final List<Duration> sleeps = new CopyOnWriteArrayList<>();
    Ec2Query ec2;

    @BeforeEach
    void start() throws IOException {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      server.createContext(
          "/",
          x -> {
            requests.add(
                form(new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
            authorizations.add(x.getRequestHeaders().getFirst("Authorization"));
            String[] reply =
                script.isEmpty() ? new String[] {"500", "no reply scripted"} : script.poll();
            byte[] body = reply[1].getBytes(StandardCharsets.UTF_8);
            x.getResponseHeaders().add("Content-Type", "text/xml;charset=UTF-8");
            x.sendResponseHeaders(Integer.parseInt(reply[0]), body.length);
            x.getResponseBody().write(body);
            x.close();
          });
      server.start();
      ec2 =
          new Ec2Query(
              URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/"),
              Region.US_WEST_2,
              StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDTEST", "secret")),
              UrlConnectionHttpClient.create(),
              new AwsRetry(
                  3, Duration.ofMillis(100), Duration.ofMillis(150), sleeps::add, () -> 1.0));
    }

    @AfterEach
    void stop() {
      server.stop(0);
    }

    static Map<String, String> form(String body) {
      var out = new LinkedHashMap<String, String>();
      for (String pair : body.split("&")) {
        int eq = pair.indexOf('=');
        out.put(
            java.net.URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
            java.net.URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
      return out;
    }

    static String error(String code) {
      return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Response><Errors><Error><Code>"
          + code
          + "</Code><Message>Request limit exceeded.</Message></Error></Errors>"
          + "<RequestID>5d2f-req</RequestID></Response>";
    }

    static final String REGIONS =
        "<DescribeRegionsResponse xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\">"
            + "<requestId>r</requestId><regionInfo><item><regionName>us-west-2</regionName>"
            + "<regionEndpoint>ec2.us-west-2.amazonaws.com</regionEndpoint></item></regionInfo>"
            + "</DescribeRegionsResponse>";

    @Test
    void shouldRetryThrottlingAndServerErrorsWithCappedExponentialBackoff() {
      script.add(new String[] {"503", error("RequestLimitExceeded")});
      script.add(new String[] {"500", error("InternalError")});
      script.add(new String[] {"200", REGIONS});

      var answer = ec2.call(Ec2Query.Params.of("DescribeRegions"));

      assertThat(answer.items("regionInfo"))
          .extracting(r -> r.text("regionName"))
          .containsExactly("us-west-2");
      assertThat(requests).hasSize(3);
      // jitter 1.0: the full backoff, 100 ms then 200 ms capped at 150 ms
      assertThat(sleeps).containsExactly(Duration.ofMillis(100), Duration.ofMillis(150));
      assertThat(authorizations)
          .allSatisfy(
              a ->
                  assertThat(a)
                      .startsWith("AWS4-HMAC-SHA256 Credential=AKIDTEST/")
                      .contains("/us-west-2/ec2/aws4_request"));
    }

    @Test
    void shouldGiveUpAfterTheLastAttemptWithTheCodeMessageAndRequestId() {
      for (int i = 0; i < 3; i++) {
        script.add(new String[] {"503", error("RequestLimitExceeded")});
      }

      assertThatThrownBy(() -> ec2.call(Ec2Query.Params.of("DescribeRegions")))
          .isInstanceOfSatisfying(
              Ec2QueryException.class,
              e -> {
                assertThat(e.code()).isEqualTo("RequestLimitExceeded");
                assertThat(e.awsMessage()).isEqualTo("Request limit exceeded.");
                assertThat(e.requestId()).isEqualTo("5d2f-req");
                assertThat(e.status()).isEqualTo(503);
                assertThat(e.retryable()).isTrue();
                assertThat(e.getMessage())
                    .contains("DescribeRegions", "HTTP 503", "RequestLimitExceeded");
              });
      assertThat(requests).hasSize(3);
      assertThat(sleeps).hasSize(2);
    }

    @Test
    void shouldNotRetryARefusal() {
      script.add(new String[] {"403", error("UnauthorizedOperation")});

      assertThatThrownBy(() -> ec2.call(Ec2Query.Params.of("DescribeRegions")))
          .isInstanceOfSatisfying(
              Ec2QueryException.class,
              e -> assertThat(e.code()).isEqualTo("UnauthorizedOperation"));
      assertThat(requests).hasSize(1);
      assertThat(sleeps).isEmpty();
    }

    @Test
    void shouldRefuseAnAnswerWithADoctypeAndNeverReadAnExternalEntity() throws IOException {
      Path secret = Files.createTempFile("ec2query", ".txt");
      Files.writeString(secret, "TOP-SECRET");
      script.add(
          new String[] {
            "200",
            "<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY x SYSTEM \""
                + secret.toUri()
                + "\">]><DescribeRegionsResponse><requestId>&x;</requestId>"
                + "</DescribeRegionsResponse>"
          });

      assertThatThrownBy(() -> ec2.call(Ec2Query.Params.of("DescribeRegions")))
          .isInstanceOfSatisfying(
              Ec2QueryException.class, e -> assertThat(e.code()).isEqualTo("MalformedAnswer"))
          .satisfies(e -> assertThat(String.valueOf(e.getMessage())).doesNotContain("TOP-SECRET"));
      Files.delete(secret);
    }

    @Test
    void shouldRefuseARequestTheEc2ModelRefusesBeforeSendingIt() {
      assertThatThrownBy(
              () ->
                  ec2.call(
                      Ec2Query.Params.of("DescribeInstances")
                          .put("Filter.1.Nmae", "tag-key")
                          .put("MaxResults", 5)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Filter.1.Nmae");

      assertThat(requests).isEmpty();
      assertThat(ContractViolations.drain())
          .singleElement()
          .satisfies(v -> assertThat(v.toString()).contains("Nmae"));
    }
  }

  @Nested
  class TheModelCheck {
    final ServiceModel model = BotocoreModels.shared().service("ec2");

    List<String> problems(Ec2Query.Params params) {
      return Ec2QueryModelInspector.validate(model, params.asMap()).stream()
          .map(Object::toString)
          .toList();
    }

    @Test
    void shouldAcceptEveryRequestShapeTheAdaptersSend() {
      assertThat(
              problems(
                  Ec2Query.Params.of("DescribeInstances")
                      .filter("capacity-reservation-id", List.of("cr-0123456789abcdef0"))
                      .filter("instance-state-name", List.of("pending", "running"))
                      .put("MaxResults", 1000)
                      .put("NextToken", "t")))
          .isEmpty();
      assertThat(
              problems(
                  Ec2Query.Params.of("GetSpotPlacementScores")
                      .list("InstanceType", List.of("p5.48xlarge"))
                      .put("TargetCapacity", 4)
                      .put("TargetCapacityUnitType", "units")
                      .put("SingleAvailabilityZone", false)
                      .list("RegionName", List.of("us-east-1"))))
          .isEmpty();
      assertThat(
              problems(
                  Ec2Query.Params.of("DescribeSpotPriceHistory")
                      .list("InstanceType", List.of("g5.xlarge"))
                      .list("ProductDescription", List.of("Linux/UNIX"))
                      .put("StartTime", java.time.Instant.parse("2026-11-30T02:00:00Z"))
                      .put("MaxResults", 1000)))
          .isEmpty();
      assertThat(
              problems(
                  Ec2Query.Params.of("DescribeInstanceTypeOfferings")
                      .put("LocationType", "availability-zone")))
          .isEmpty();
    }

    @Test
    void shouldNameEachWayARequestBreaksTheModel() {
      assertThat(problems(Ec2Query.Params.of("DescribeInstancez")))
          .singleElement()
          .asString()
          .contains("not an operation");
      assertThat(
              problems(
                  Ec2Query.Params.of("GetSpotPlacementScores")
                      .list("InstanceType", List.of("p5.48xlarge"))))
          .singleElement()
          .asString()
          .contains("TargetCapacity", "required");
      assertThat(
              problems(
                  Ec2Query.Params.of("DescribeInstanceTypeOfferings")
                      .put("LocationType", "planet")))
          .singleElement()
          .asString()
          .contains("planet", "is not one of");
      assertThat(problems(Ec2Query.Params.of("DescribeInstances").put("MaxResults", "lots")))
          .singleElement()
          .asString()
          .contains("is not a integer");
      assertThat(
              problems(
                  Ec2Query.Params.of("DescribeInstances")
                      .put("InstanceId.1", "i-1")
                      .put("InstanceId.3", "i-3")))
          .singleElement()
          .asString()
          .contains("list index 2 is missing");
      assertThat(problems(Ec2Query.Params.of("DescribeInstances").put("InstanceIds.1", "i-1")))
          .singleElement()
          .asString()
          .contains("InstanceIds");
      assertThat(problems(Ec2Query.Params.of("DescribeInstances").put("Filter.1", "tag-key")))
          .singleElement()
          .asString()
          .contains("given as a single value");
      assertThat(
              problems(
                  Ec2Query.Params.of("DescribeSpotPriceHistory").put("StartTime", "yesterday")))
          .singleElement()
          .asString()
          .contains("is not a timestamp");
      var wrongVersion = new LinkedHashMap<>(Ec2Query.Params.of("DescribeRegions").asMap());
      wrongVersion.put("Version", "2015-10-01");
      assertThat(Ec2QueryModelInspector.validate(model, wrongVersion))
          .singleElement()
          .asString()
          .contains("Version");
    }
  }

  @Test
  void shouldFindEc2InEachPartitionAndHonourTheOverridesTheSdkHonours() {
    assertThat(Ec2Query.endpointFor(Region.US_EAST_1, Optional.empty(), Map.of()))
        .hasToString("https://ec2.us-east-1.amazonaws.com/");
    assertThat(Ec2Query.endpointFor(Region.of("cn-north-1"), Optional.empty(), Map.of()))
        .hasToString("https://ec2.cn-north-1.amazonaws.com.cn/");
    assertThat(Ec2Query.endpointFor(Region.of("us-gov-west-1"), Optional.empty(), Map.of()))
        .hasToString("https://ec2.us-gov-west-1.amazonaws.com/");
    assertThat(
            Ec2Query.endpointFor(
                Region.US_EAST_1,
                Optional.empty(),
                Map.of("AWS_ENDPOINT_URL", "http://localhost:5000")))
        .hasToString("http://localhost:5000");
    assertThat(
            Ec2Query.endpointFor(
                Region.US_EAST_1,
                Optional.empty(),
                Map.of(
                    "AWS_ENDPOINT_URL", "http://a:1", "AWS_ENDPOINT_URL_EC2", "http://ec2-only:2")))
        .hasToString("http://ec2-only:2");
    assertThat(
            Ec2Query.endpointFor(
                Region.US_EAST_1,
                Optional.of(URI.create("http://moto:3000")),
                Map.of("AWS_ENDPOINT_URL_EC2", "http://ec2-only:2")))
        .hasToString("http://moto:3000");
    assertThatThrownBy(
            () -> Ec2Query.endpointFor(Region.of("evil.com/x"), Optional.empty(), Map.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
