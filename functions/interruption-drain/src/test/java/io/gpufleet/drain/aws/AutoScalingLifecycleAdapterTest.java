package io.gpufleet.drain.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.time.VirtualTime;
import io.gpufleet.drain.LifecyclePort;
import io.gpufleet.drain.LifecyclePort.Hook;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.SimAutoScaling;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.autoscaling.AutoScalingClient;

/**
 * The Auto Scaling adapter through the real SDK client (query protocol) against a simulated
 * lifecycle-hook service; every request the stub receives is checked against botocore's model of
 * autoscaling 2011-01-01.
 */
public class AutoScalingLifecycleAdapterTest {
  static final QueryModelCheck MODEL = QueryModelCheck.of("autoscaling", "2011-01-01");
  static AwsStubServer stub;
  static AutoScalingClient client;
  static final Instant NOW = Instant.parse("2026-12-01T03:00:00Z");
  SimAutoScaling asg;
  LifecyclePort port;

  public static AutoScalingClient client(URI endpoint) {
    return AutoScalingClient.builder()
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDSTUB", "secret")))
        .endpointOverride(endpoint)
        .overrideConfiguration(o -> o.retryStrategy(RetryMode.STANDARD))
        .build();
  }

  @BeforeAll
  static void start() {
    stub = AwsStubServer.start();
    client = client(stub.endpoint());
  }

  @AfterAll
  static void stop() {
    client.close();
    stub.close();
  }

  @BeforeEach
  void seed() {
    stub.reset();
    asg = new SimAutoScaling(stub, new VirtualTime(NOW));
    port = new AutoScalingLifecycleAdapter(client);
  }

  @AfterEach
  void everyRequestFitsTheServiceModel() {
    assertThat(stub.calls()).isNotEmpty();
    for (var call : stub.calls()) {
      assertThat(MODEL.violations(call)).as("%s %s", call.operation(), call.params()).isEmpty();
    }
  }

  @Test
  void shouldCompleteByTokenAndInstanceIdWithTheGivenResult() throws Exception {
    String token =
        asg.hold(
            "gpu-asg",
            "drain-hook",
            "i-0123456789abcdef0",
            "autoscaling:EC2_INSTANCE_TERMINATING",
            Duration.ofMinutes(5),
            "ABANDON");

    port.complete(new Hook("gpu-asg", "drain-hook", token, "i-0123456789abcdef0"), "CONTINUE");

    assertThat(asg.completions())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.result()).isEqualTo("CONTINUE");
              assertThat(c.byTimeout()).isFalse();
              assertThat(c.instanceId()).isEqualTo("i-0123456789abcdef0");
            });
    var call = stub.calls("CompleteLifecycleAction").get(0);
    assertThat(call.params())
        .containsEntry("AutoScalingGroupName", "gpu-asg")
        .containsEntry("LifecycleHookName", "drain-hook")
        .containsEntry("LifecycleActionResult", "CONTINUE")
        .containsEntry("LifecycleActionToken", token)
        .containsEntry("InstanceId", "i-0123456789abcdef0");
  }

  @Test
  void shouldCompleteByInstanceIdAloneWhenTheEventHadNoUsableToken() throws Exception {
    asg.hold(
        "gpu-asg",
        "drain-hook",
        "i-0123456789abcdef0",
        "autoscaling:EC2_INSTANCE_TERMINATING",
        Duration.ofMinutes(5),
        "ABANDON");

    port.complete(new Hook("gpu-asg", "drain-hook", null, "i-0123456789abcdef0"), "ABANDON");

    assertThat(asg.completions())
        .extracting(SimAutoScaling.Completion::result)
        .containsExactly("ABANDON");
    assertThat(stub.calls("CompleteLifecycleAction").get(0).params())
        .doesNotContainKey("LifecycleActionToken");
  }

  @Test
  void shouldRestartTheHooksTimeoutWithAHeartbeat() throws Exception {
    String token =
        asg.hold(
            "gpu-asg",
            "drain-hook",
            "i-0123456789abcdef0",
            "autoscaling:EC2_INSTANCE_TERMINATING",
            Duration.ofMinutes(5),
            "ABANDON");

    port.heartbeat(new Hook("gpu-asg", "drain-hook", token, "i-0123456789abcdef0"));

    assertThat(asg.heartbeats()).hasSize(1);
    assertThat(stub.calls("RecordLifecycleActionHeartbeat").get(0).params())
        .containsEntry("LifecycleActionToken", token);
  }

  @Test
  void shouldReportAnActionThatIsNoLongerWaitingAsGone() {
    var hook = new Hook("gpu-asg", "drain-hook", null, "i-0123456789abcdef0");

    assertThatThrownBy(() -> port.complete(hook, "CONTINUE"))
        .isInstanceOf(LifecyclePort.HookGoneException.class)
        .hasMessageContaining("No active Lifecycle Action");
    assertThatThrownBy(() -> port.heartbeat(hook))
        .isInstanceOf(LifecyclePort.HookGoneException.class);
  }

  @Test
  void shouldReportAccessDeniedAsNotOurs() {
    stub.on(
        "CompleteLifecycleAction",
        c ->
            new AwsStubServer.Reply(
                403,
                "text/xml",
                "<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>User is"
                    + " not authorized to perform: autoscaling:CompleteLifecycleAction</Message>"
                    + "</Error><RequestId>x</RequestId></ErrorResponse>"));

    assertThatThrownBy(
            () -> port.complete(new Hook("other", "h", null, "i-0123456789abcdef0"), "CONTINUE"))
        .isInstanceOf(LifecyclePort.HookDeniedException.class)
        .hasMessageContaining("AccessDenied");
  }

  @Test
  void shouldSurfaceContentionAfterTheSdksRetriesAsUnavailable() {
    stub.on("CompleteLifecycleAction", c -> SimAutoScaling.error("ResourceContention", "busy"));

    assertThatThrownBy(
            () -> port.complete(new Hook("gpu-asg", "h", null, "i-0123456789abcdef0"), "CONTINUE"))
        .isInstanceOf(LifecyclePort.HookUnavailableException.class);
  }

  @Test
  void shouldFindThatTheModelCheckRefusesWhatAwsWouldRefuse() {
    // a guard on the guard: a request missing a required member and with a too-long token
    stub.on("CompleteLifecycleAction", c -> AwsStubServer.Reply.xml("<x/>"));
    var bad =
        new AwsStubServer.Call(
            "CompleteLifecycleAction",
            "us-east-1",
            java.util.Map.of(),
            "",
            java.util.Map.of(
                "Action", "CompleteLifecycleAction",
                "Version", "2011-01-01",
                "AutoScalingGroupName", "g",
                "LifecycleActionToken", "too-short",
                "Bogus", "1"));
    assertThat(MODEL.violations(bad))
        .anyMatch(v -> v.contains("LifecycleHookName is missing"))
        .anyMatch(v -> v.contains("LifecycleActionResult is missing"))
        .anyMatch(v -> v.contains("LifecycleActionToken") && v.contains("min 36"))
        .anyMatch(v -> v.contains("unknown member Bogus"));
    // and a real request so the @AfterEach check has something to look at
    try {
      port.complete(new Hook("gpu-asg", "h", null, "i-0123456789abcdef0"), "CONTINUE");
    } catch (LifecyclePort.HookGoneException e) {
      throw new AssertionError(e);
    }
  }
}
