package io.gpufleet.core.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.aws.AwsRetry;
import io.gpufleet.testkit.aws.contract.BotocoreModels;
import io.gpufleet.testkit.aws.contract.ContractViolations;
import io.gpufleet.testkit.aws.contract.S3RestModelInspector;
import io.gpufleet.testkit.aws.contract.ServiceModel;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;

/**
 * The S3 REST client against a scripted server (what moto cannot be made to do: SlowDown, 503s, 409
 * conflicts, 404s without a body), its addressing, and the model check every request goes through.
 */
class S3RestTest {
  static final StaticCredentialsProvider KEYS =
      StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDTEST", "secret"));

  /** One request as the server saw it. */
  record Seen(String method, String rawPath, Map<String, List<String>> headers, byte[] body) {
    String header(String name) {
      var v = headers.get(Character.toUpperCase(name.charAt(0)) + name.substring(1).toLowerCase());
      return v == null ? null : v.get(0);
    }
  }

  /** One scripted answer: status, body, extra headers (name, value, ...). */
  record Reply(int status, String body, String... headers) {}

  @Nested
  class AgainstAScriptedServer {
    HttpServer server;
    final Deque<Reply> script = new ArrayDeque<>();
    final List<Seen> seen = new CopyOnWriteArrayList<>();
    final List<Duration> sleeps = new CopyOnWriteArrayList<>();
    S3Rest s3;

    @BeforeEach
    void start() throws IOException {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      server.createContext(
          "/",
          x -> {
            seen.add(
                new Seen(
                    x.getRequestMethod(),
                    x.getRequestURI().getRawPath(),
                    Map.copyOf(x.getRequestHeaders()),
                    x.getRequestBody().readAllBytes()));
            Reply reply = script.isEmpty() ? new Reply(500, "") : script.poll();
            for (int i = 0; i + 1 < reply.headers().length; i += 2) {
              x.getResponseHeaders().add(reply.headers()[i], reply.headers()[i + 1]);
            }
            x.getResponseHeaders().add("x-amz-request-id", "req-" + seen.size());
            byte[] body = reply.body().getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(reply.status(), body.length == 0 ? -1 : body.length);
            if (body.length > 0) {
              x.getResponseBody().write(body);
            }
            x.close();
          });
      server.start();
      s3 =
          new S3Rest(
              URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
              true,
              Region.US_EAST_1,
              KEYS,
              UrlConnectionHttpClient.create(),
              new AwsRetry(
                  3, Duration.ofMillis(100), Duration.ofSeconds(20), sleeps::add, () -> 1.0));
    }

    @AfterEach
    void stop() {
      server.stop(0);
    }

    static String error(String code, String message) {
      return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>"
          + code
          + "</Code><Message>"
          + message
          + "</Message><RequestId>"
          + code
          + "-id</RequestId><HostId>h</HostId></Error>";
    }

    static String sha256(byte[] bytes) throws Exception {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    @Test
    void shouldPutPathStyleWithTheHeadersOfTheModelAndTheSignedPayloadHash() throws Exception {
      script.add(new Reply(200, "", "ETag", "\"abc\""));
      byte[] body = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);

      String etag =
          s3.put("reports", "cost/c.json", body, "application/json", S3Rest.Condition.ifAbsent());

      assertThat(etag).isEqualTo("\"abc\"");
      var put = seen.get(0);
      assertThat(put.method()).isEqualTo("PUT");
      assertThat(put.rawPath()).isEqualTo("/reports/cost/c.json");
      assertThat(put.body()).isEqualTo(body);
      assertThat(put.header("Content-Type")).isEqualTo("application/json");
      assertThat(put.header("If-None-Match")).isEqualTo("*");
      assertThat(put.header("Content-Length")).isEqualTo(String.valueOf(body.length));
      // S3 refuses a SigV4 request without x-amz-content-sha256; here the payload is signed
      assertThat(put.header("X-Amz-Content-Sha256")).isEqualTo(sha256(body));
      assertThat(put.header("Authorization"))
          .startsWith("AWS4-HMAC-SHA256 Credential=AKIDTEST/")
          .contains("/us-east-1/s3/aws4_request")
          .containsPattern("SignedHeaders=[a-z0-9;-]*x-amz-content-sha256");
    }

    @Test
    void shouldGetBodyETagAndTypeSigningTheEmptyPayload() throws Exception {
      script.add(
          new Reply(200, "entries: []", "ETag", "\"e1\"", "Content-Type", "application/yaml"));

      var blob = s3.get("plans", "p.yaml").orElseThrow();

      assertThat(blob.text()).isEqualTo("entries: []");
      assertThat(blob.etag()).isEqualTo("\"e1\"");
      assertThat(blob.contentType()).isEqualTo("application/yaml");
      var get = seen.get(0);
      assertThat(get.method()).isEqualTo("GET");
      assertThat(get.rawPath()).isEqualTo("/plans/p.yaml");
      assertThat(get.header("X-Amz-Content-Sha256")).isEqualTo(sha256(new byte[0]));
      assertThat(get.header("If-None-Match")).isNull();
    }

    @Test
    void shouldSendIfMatchWithTheETagRead() {
      script.add(new Reply(200, "", "ETag", "\"new\""));

      s3.put("b", "k", new byte[] {1}, null, S3Rest.Condition.ifMatch("\"old\""));

      assertThat(seen.get(0).header("If-Match")).isEqualTo("\"old\"");
      assertThat(seen.get(0).header("Content-Type")).isEqualTo("application/octet-stream");
    }

    @ParameterizedTest
    @CsvSource({
      "412, PreconditionFailed, true",
      "409, ConditionalRequestConflict, true",
      "412, '', true",
      "403, AccessDenied, false"
    })
    void shouldRefuseAConditionalWriteWithoutRetrying(int status, String code, boolean refused) {
      script.add(new Reply(status, code.isEmpty() ? "" : error(code, "no")));

      assertThatThrownBy(
              () -> s3.put("b", "k", new byte[] {1}, "text/plain", S3Rest.Condition.ifAbsent()))
          .isInstanceOfSatisfying(
              S3RestException.class,
              e -> {
                assertThat(e.status()).isEqualTo(status);
                assertThat(e.code()).isEqualTo(code.isEmpty() ? "PreconditionFailed" : code);
                assertThat(e.conditionRefused()).isEqualTo(refused);
                assertThat(e.retryable()).isFalse();
                assertThat(e.service()).isEqualTo("S3");
                assertThat(e.operation()).isEqualTo("PutObject");
              });
      assertThat(seen).hasSize(1);
      assertThat(sleeps).isEmpty();
    }

    @Test
    void shouldReadNoSuchKeyAsAbsentWithOrWithoutABody() {
      script.add(new Reply(404, error("NoSuchKey", "The specified key does not exist.")));
      script.add(new Reply(404, ""));

      assertThat(s3.get("b", "gone")).isEmpty();
      assertThat(s3.get("b", "gone")).as("a 404 with no body, as HEAD answers").isEmpty();
      assertThat(seen).hasSize(2);
    }

    @Test
    void shouldThrowNoSuchBucketWithCodeMessageAndRequestId() {
      script.add(new Reply(404, error("NoSuchBucket", "The specified bucket does not exist")));

      assertThatThrownBy(() -> s3.get("nobucket", "k"))
          .isInstanceOfSatisfying(
              S3RestException.class,
              e -> {
                assertThat(e.noSuchBucket()).isTrue();
                assertThat(e.noSuchKey()).isFalse();
                assertThat(e.awsMessage()).isEqualTo("The specified bucket does not exist");
                assertThat(e.requestId()).isEqualTo("NoSuchBucket-id");
              });
    }

    @Test
    void shouldRetrySlowDownAndServerErrorsThenSucceed() {
      script.add(new Reply(503, error("SlowDown", "Please reduce your request rate.")));
      script.add(new Reply(500, error("InternalError", "We encountered an internal error.")));
      script.add(new Reply(200, "", "ETag", "\"x\""));
      byte[] body = "abc".getBytes(StandardCharsets.UTF_8);

      assertThat(s3.put("b", "k", body, "text/plain")).isEqualTo("\"x\"");

      assertThat(seen).hasSize(3);
      assertThat(seen).allSatisfy(r -> assertThat(r.body()).isEqualTo(body));
      assertThat(sleeps).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
    }

    @Test
    void shouldGiveUpAfterTheAttemptsWithTheLastError() {
      script.add(new Reply(503, error("SlowDown", "slow")));
      script.add(new Reply(503, ""));
      script.add(new Reply(503, error("SlowDown", "slower")));

      assertThatThrownBy(() -> s3.delete("b", "k"))
          .isInstanceOfSatisfying(
              S3RestException.class,
              e -> {
                assertThat(e.code()).isEqualTo("SlowDown");
                assertThat(e.awsMessage()).isEqualTo("slower");
                assertThat(e.retryable()).isTrue();
                assertThat(e.operation()).isEqualTo("DeleteObject");
              });
      assertThat(seen).extracting(Seen::method).containsOnly("DELETE");
      assertThat(seen).hasSize(3);
    }

    @Test
    void shouldDeleteAndTakeA204AsDone() {
      script.add(new Reply(204, ""));

      s3.delete("b", "dedupe/ab12");

      assertThat(seen.get(0).method()).isEqualTo("DELETE");
      assertThat(seen.get(0).rawPath()).isEqualTo("/b/dedupe/ab12");
      assertThat(seen.get(0).body()).isEmpty();
    }

    @Test
    void shouldEncodeEachKeySegmentAndKeepTheSlashes() {
      script.add(new Reply(200, "x"));

      s3.get("b", "reports/a b/ü+%*~=.json");

      assertThat(seen.get(0).rawPath()).isEqualTo("/b/reports/a%20b/%C3%BC%2B%25%2A~%3D.json");
    }

    @Test
    void shouldRefuseABucketOrKeyThatWouldAddressSomethingElseBeforeSending() {
      assertThatThrownBy(() -> s3.delete("b", ""))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("key is empty");
      assertThatThrownBy(() -> s3.get("b/c", "k"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("not an S3 bucket name: 'b/c'");
      assertThat(seen).isEmpty();
    }

    @Test
    void shouldRetryWhenNoAnswerComesAndSayWhy() throws IOException {
      int closed;
      try (var socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        closed = socket.getLocalPort();
      }
      var nowhere =
          new S3Rest(
              URI.create("http://127.0.0.1:" + closed),
              true,
              Region.US_EAST_1,
              KEYS,
              UrlConnectionHttpClient.create(),
              AwsRetry.standard().withSleeper(sleeps::add));

      assertThatThrownBy(() -> nowhere.get("b", "k"))
          .isInstanceOfSatisfying(
              S3RestException.class,
              e -> {
                assertThat(e.status()).isZero();
                assertThat(e.code()).isEqualTo("TransportError");
                assertThat(e.retryable()).isTrue();
              });
      assertThat(sleeps).hasSize(2);
    }
  }

  @Nested
  class Addressing {
    static AwsClients aws(String region, Optional<URI> override) {
      return new AwsClients(Region.of(region), KEYS, override);
    }

    @ParameterizedTest
    @CsvSource({
      "us-west-2, my-bucket, a/b c.json, https://my-bucket.s3.us-west-2.amazonaws.com/a/b%20c.json",
      "us-east-1, reports, k, https://reports.s3.us-east-1.amazonaws.com/k",
      "cn-north-1, reports, k, https://reports.s3.cn-north-1.amazonaws.com.cn/k",
      "us-gov-west-1, reports, k, https://reports.s3.us-gov-west-1.amazonaws.com/k",
      // a dotted name does not match the TLS certificate's *.s3.<region> host: path style
      "us-west-2, my.bucket, k, https://s3.us-west-2.amazonaws.com/my.bucket/k",
      // legacy us-east-1 names with upper case or underscores cannot be host labels
      "us-east-1, Legacy_Bucket, k, https://s3.us-east-1.amazonaws.com/Legacy_Bucket/k"
    })
    void shouldAddressVirtualHostedOnAwsWhereTheNameAllows(
        String region, String bucket, String key, String uri) {
      assertThat(S3Rest.from(aws(region, Optional.empty()), Map.of()).objectUri(bucket, key))
          .hasToString(uri);
    }

    @Test
    void shouldAddressPathStyleForAnEmulatorHoweverItIsNamed() {
      var override = aws("us-east-1", Optional.of(URI.create("http://127.0.0.1:5000")));
      assertThat(S3Rest.from(override, Map.of()).objectUri("reports", "k"))
          .hasToString("http://127.0.0.1:5000/reports/k");
      assertThat(
              S3Rest.from(
                      aws("eu-west-1", Optional.empty()),
                      Map.of(
                          "AWS_ENDPOINT_URL",
                          "http://other:1",
                          "AWS_ENDPOINT_URL_S3",
                          "http://localhost:4566/"))
                  .objectUri("reports", "a/b"))
          .hasToString("http://localhost:4566/reports/a/b");
      assertThat(
              S3Rest.from(
                      aws("eu-west-1", Optional.empty()),
                      Map.of("AWS_ENDPOINT_URL", "http://moto:5000"))
                  .objectUri("reports", "k"))
          .hasToString("http://moto:5000/reports/k");
    }

    @Test
    void shouldTakeAnOverrideForARegionNameAwsDoesNotHave() {
      assertThat(
              S3Rest.from(aws("local", Optional.of(URI.create("http://127.0.0.1:5000"))), Map.of())
                  .objectUri("reports", "k"))
          .hasToString("http://127.0.0.1:5000/reports/k");
      assertThatThrownBy(() -> S3Rest.from(aws("local", Optional.empty()), Map.of()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("not an AWS region name: local");
    }

    @Test
    void shouldRefuseAnEndpointWithAPath() {
      assertThatThrownBy(
              () ->
                  S3Rest.from(
                      aws("eu-west-1", Optional.of(URI.create("http://127.0.0.1:5000/s3"))),
                      Map.of()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("no path or query: http://127.0.0.1:5000/s3");
    }

    @Test
    void shouldPrimeWithoutCredentialsRegionOrNetwork() {
      S3Rest.prime();
      S3Rest.prime();
    }
  }

  @Nested
  class TheModelCheck {
    final ServiceModel s3 = BotocoreModels.shared().service("s3");

    SdkHttpRequest.Builder request(SdkHttpMethod method, String uri) {
      return SdkHttpRequest.builder().method(method).uri(URI.create(uri));
    }

    List<String> problems(String op, String bucket, String key, SdkHttpRequest r, byte[] body) {
      return S3RestModelInspector.validate(s3, op, bucket, key, r, body).stream()
          .map(v -> v.path() + " " + v.problem())
          .toList();
    }

    @Test
    void shouldAcceptWhatTheClientSendsPathStyleAndVirtualHosted() {
      var put =
          request(SdkHttpMethod.PUT, "http://127.0.0.1:5000/b/a/b%20c.json")
              .putHeader("Content-Type", "application/json")
              .putHeader("Content-Length", "2")
              .putHeader("If-None-Match", "*")
              .build();
      assertThat(problems("PutObject", "b", "a/b c.json", put, new byte[2])).isEmpty();
      var get = request(SdkHttpMethod.GET, "https://bkt.s3.us-east-1.amazonaws.com/k%2Bx").build();
      assertThat(problems("GetObject", "bkt", "k+x", get, null)).isEmpty();
      var delete = request(SdkHttpMethod.DELETE, "http://127.0.0.1:5000/b/k").build();
      assertThat(problems("DeleteObject", "b", "k", delete, null)).isEmpty();
    }

    @Test
    void shouldNameEachWayARequestBreaksTheModel() {
      var wrong =
          request(SdkHttpMethod.POST, "http://127.0.0.1:5000/b/a/b+c")
              .putHeader("If-None-Matches", "*")
              .putHeader("Content-Length", "two")
              .build();
      assertThat(problems("PutObject", "b", "a/b c", wrong, new byte[2]))
          .anySatisfy(
              p -> assertThat(p).startsWith("http.method is 'PUT', the client sends 'POST'"))
          .anySatisfy(p -> assertThat(p).contains("is not /{Bucket}/{Key+}"))
          .anySatisfy(
              p ->
                  assertThat(p)
                      .startsWith(
                          "header If-None-Matches is not the locationName of a member of"
                              + " PutObjectRequest"))
          .anySatisfy(p -> assertThat(p).startsWith("header Content-Length 'two' is not a long"));
      var bodyOnGet = request(SdkHttpMethod.GET, "http://127.0.0.1:5000/b/k").build();
      assertThat(problems("GetObject", "b", "k", bodyOnGet, new byte[1]))
          .containsExactly("body is sent but GetObjectRequest has no payload member");
      var slashEncoded = request(SdkHttpMethod.GET, "http://127.0.0.1:5000/b/a%2Fb").build();
      assertThat(problems("GetObject", "b", "a/b", slashEncoded, null))
          .singleElement()
          .satisfies(p -> assertThat(p).endsWith(": /b/a/b"));
      var noKey = request(SdkHttpMethod.GET, "http://127.0.0.1:5000/b/").build();
      assertThat(problems("GetObject", "b", "", noKey, null))
          .containsExactly("GetObjectRequest.Key length 0 is below the minimum 1");
      assertThat(problems("GetObjects", "b", "k", bodyOnGet, null))
          .containsExactly(" is not an operation");
    }

    @Test
    void shouldRefuseARequestTheModelRefusesBeforeSendingIt() {
      // a key S3 would store under another name if the client sent it unencoded is caught by the
      // inspector registered in the testkit jar: prove it is there by a request it must refuse
      ContractViolations.drain();
      long before = ContractViolations.validatedRequests();
      var client =
          new S3Rest(
              URI.create("http://127.0.0.1:9"),
              true,
              Region.US_EAST_1,
              KEYS,
              UrlConnectionHttpClient.create(),
              AwsRetry.standard());
      assertThatThrownBy(
              () -> client.put("b", "k", new byte[0], "t", new S3Rest.Condition("If-Nope", "*")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("header If-Nope is not the locationName");
      assertThat(ContractViolations.validatedRequests()).isEqualTo(before + 1);
      assertThat(ContractViolations.drain()).hasSize(1);
    }
  }
}
