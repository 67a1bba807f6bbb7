package io.gpufleet.core.aws;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Credentials the way Lambda hands them out. Each case runs {@link AwsClients#fromEnvironment()} in
 * a child JVM whose whole environment is the one Lambda would give: the SDK reads environment
 * variables itself, so only a fresh process can hold it to them.
 */
class AwsClientsCredentialsTest {
  private static final String TOKEN = "lambda-container-token-6f1c";
  private HttpServer endpoint;
  private final List<String> authorizations = new CopyOnWriteArrayList<>();

  @BeforeEach
  void startContainerCredentialsEndpoint() throws IOException {
    // Like Lambda's endpoint: 401 unless the Authorization header carries the token.
    endpoint = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    endpoint.createContext(
        "/2018-06-01/credentials",
        exchange -> {
          String auth = exchange.getRequestHeaders().getFirst("Authorization");
          authorizations.add(String.valueOf(auth));
          byte[] body;
          int status;
          if (TOKEN.equals(auth)) {
            status = 200;
            body =
                ("{\"AccessKeyId\":\"ASIACONTAINER\",\"SecretAccessKey\":\"s\",\"Token\":\"t\","
                        + "\"Expiration\":\""
                        + Instant.now().plus(Duration.ofHours(1))
                        + "\"}")
                    .getBytes(StandardCharsets.UTF_8);
          } else {
            status = 401;
            body = "{\"message\":\"unauthorized\"}".getBytes(StandardCharsets.UTF_8);
          }
          exchange.sendResponseHeaders(status, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    endpoint.start();
  }

  @AfterEach
  void stop() {
    endpoint.stop(0);
  }

  @Test
  void shouldUseContainerCredentialsWhenSnapStartLambdaSetsNoKeys() throws Exception {
    // Given the environment of a SnapStart function: container endpoint + token, no access keys
    var env =
        Map.of(
            "AWS_LAMBDA_FUNCTION_NAME", "gpufleet-drain",
            "AWS_LAMBDA_INITIALIZATION_TYPE", "snap-start",
            "AWS_REGION", "us-east-1",
            "AWS_CONTAINER_CREDENTIALS_FULL_URI",
                "http://127.0.0.1:" + endpoint.getAddress().getPort() + "/2018-06-01/credentials",
            "AWS_CONTAINER_AUTHORIZATION_TOKEN", TOKEN);

    // When the function resolves its credentials
    var result = probe(env);

    // Then they come from the container endpoint, asked with the token
    assertThat(result.output()).contains("access-key=ASIACONTAINER");
    assertThat(result.exitCode()).isZero();
    assertThat(authorizations).containsExactly(TOKEN);
  }

  @Test
  void shouldUseEnvironmentCredentialsWhenLambdaSetsKeys() throws Exception {
    var env =
        Map.of(
            "AWS_LAMBDA_FUNCTION_NAME", "gpufleet-drain",
            "AWS_REGION", "us-east-1",
            "AWS_ACCESS_KEY_ID", "ASIAENVIRONMENT",
            "AWS_SECRET_ACCESS_KEY", "s",
            "AWS_SESSION_TOKEN", "t");

    var result = probe(env);

    assertThat(result.output()).contains("access-key=ASIAENVIRONMENT");
    assertThat(result.exitCode()).isZero();
    assertThat(authorizations).isEmpty();
  }

  @Test
  void shouldResolveNothingAtConstruction() throws Exception {
    // Building the clients at INIT must not fetch credentials (nothing may be captured in a
    // snapshot); the probe's "build-only" mode constructs and exits.
    var env =
        Map.of(
            "AWS_LAMBDA_FUNCTION_NAME",
            "gpufleet-drain",
            "AWS_REGION",
            "us-east-1",
            "AWS_CONTAINER_CREDENTIALS_FULL_URI",
            "http://127.0.0.1:" + endpoint.getAddress().getPort() + "/2018-06-01/credentials",
            "AWS_CONTAINER_AUTHORIZATION_TOKEN",
            TOKEN);

    var result = probe(env, "build-only");

    assertThat(result.output()).contains("built");
    assertThat(authorizations).isEmpty();
  }

  record Result(int exitCode, String output) {}

  private static Result probe(Map<String, String> env, String... args) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    var command = new java.util.ArrayList<>(List.of(java, "-cp", classpath));
    command.add(CredentialsProbe.class.getName());
    command.addAll(List.of(args));
    var builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().clear();
    builder.environment().putAll(env);
    // No profile file of the machine running the tests may leak in.
    builder.environment().put("AWS_CONFIG_FILE", "/nonexistent/config");
    builder.environment().put("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/credentials");
    builder.environment().put("AWS_EC2_METADATA_DISABLED", "true");
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("probe finished").isTrue();
    return new Result(process.exitValue(), output);
  }
}
