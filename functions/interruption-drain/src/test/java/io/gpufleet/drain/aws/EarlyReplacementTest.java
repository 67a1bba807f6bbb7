package io.gpufleet.drain.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.drain.EarlyReplacement;
import io.gpufleet.drain.EarlyReplacement.Action;
import io.gpufleet.drain.ReplacementPort;
import io.gpufleet.drain.model.DrainKind;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.SimAutoScalingGroups;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.services.autoscaling.AutoScalingClient;

/**
 * Replacement before removal through the real SDK client against the simulated Auto Scaling groups
 * (which enforce MaxSize as AWS does); every request is checked against the service model.
 */
class EarlyReplacementTest {
  static final Map<String, String> OPTED_IN = Map.of(EarlyReplacement.OPT_IN, "true");
  static AwsStubServer stub;
  static AutoScalingClient client;
  SimAutoScalingGroups asg;
  EarlyReplacement replacement;

  @BeforeAll
  static void start() {
    stub = AwsStubServer.start();
    client = AutoScalingLifecycleAdapterTest.client(stub.endpoint());
  }

  @AfterAll
  static void stop() {
    client.close();
    stub.close();
  }

  @BeforeEach
  void seed() {
    stub.reset();
    asg = new SimAutoScalingGroups(stub);
    replacement = new EarlyReplacement(new AutoScalingReplacementAdapter(client));
  }

  @AfterEach
  void everyRequestFitsTheServiceModel() {
    for (var call : stub.calls()) {
      assertThat(AutoScalingLifecycleAdapterTest.MODEL.violations(call))
          .as("%s %s", call.operation(), call.params())
          .isEmpty();
    }
  }

  @Test
  void shouldRaiseByOneOnceForARedeliveredWarningAndEndAtTheOriginalSize() {
    // Given an opted-in group of two (max 4) without Capacity Rebalancing
    asg.add("gpu-ng", 1, 4, false, OPTED_IN, "i-0aaaaaaaaaaaaaaa1", "i-0aaaaaaaaaaaaaaa2");

    // When the rebalance recommendation for one instance is delivered twice, then its Spot warning
    var first = replacement.raise("i-0aaaaaaaaaaaaaaa1", DrainKind.REBALANCE).orElseThrow();
    var again = replacement.raise("i-0aaaaaaaaaaaaaaa1", DrainKind.REBALANCE).orElseThrow();
    var spot = replacement.raise("i-0aaaaaaaaaaaaaaa1", DrainKind.SPOT_INTERRUPTION).orElseThrow();

    // Then the group was raised by one, once
    assertThat(first.action()).isEqualTo(Action.RAISED);
    assertThat(first.desiredAfter()).isEqualTo(3);
    assertThat(again.action()).isEqualTo(Action.ALREADY_RAISED);
    assertThat(spot.action()).isEqualTo(Action.ALREADY_RAISED);
    assertThat(asg.setDesiredCalls()).containsExactly("gpu-ng=3");
    assertThat(asg.group("gpu-ng").desired).isEqualTo(3);

    // and when the drain is done (and told twice) the old instance goes and the group is back at 2
    var done = replacement.finish("i-0aaaaaaaaaaaaaaa1").orElseThrow();
    assertThat(replacement.finish("i-0aaaaaaaaaaaaaaa1")).isEmpty();
    assertThat(done.action()).isEqualTo(Action.TERMINATED);
    var g = asg.group("gpu-ng");
    assertThat(g.desired).isEqualTo(2);
    assertThat(g.instances).doesNotContain("i-0aaaaaaaaaaaaaaa1").hasSize(2);
    assertThat(g.tags).containsOnlyKeys(EarlyReplacement.OPT_IN);
  }

  @Test
  void shouldRaiseByOnePerInstanceWhenTwoNodesOfOneGroupAreInterrupted() {
    asg.add("gpu-ng", 1, 5, false, OPTED_IN, "i-0aaaaaaaaaaaaaaa1", "i-0aaaaaaaaaaaaaaa2");

    replacement.raise("i-0aaaaaaaaaaaaaaa1", DrainKind.SPOT_INTERRUPTION);
    replacement.raise("i-0aaaaaaaaaaaaaaa2", DrainKind.SPOT_INTERRUPTION);
    replacement.raise("i-0aaaaaaaaaaaaaaa1", DrainKind.SPOT_INTERRUPTION);
    assertThat(asg.group("gpu-ng").desired).isEqualTo(4);

    replacement.finish("i-0aaaaaaaaaaaaaaa1");
    // a late redelivery for the second one between the two terminations raises nothing
    replacement.raise("i-0aaaaaaaaaaaaaaa2", DrainKind.SPOT_INTERRUPTION);
    replacement.finish("i-0aaaaaaaaaaaaaaa2");
    assertThat(asg.group("gpu-ng").desired).isEqualTo(2);
    assertThat(asg.setDesiredCalls()).containsExactly("gpu-ng=3", "gpu-ng=4");
  }

  @Test
  void shouldSayTheGroupIsAtItsMaxAndChangeNothing() {
    asg.add("gpu-ng", 1, 2, false, OPTED_IN, "i-0aaaaaaaaaaaaaaa1", "i-0aaaaaaaaaaaaaaa2");

    var r = replacement.raise("i-0aaaaaaaaaaaaaaa1", DrainKind.SPOT_INTERRUPTION).orElseThrow();

    assertThat(r.action()).isEqualTo(Action.AT_MAX);
    assertThat(r.note()).contains("MaxSize 2");
    assertThat(asg.setDesiredCalls()).isEmpty();
    assertThat(replacement.finish("i-0aaaaaaaaaaaaaaa1")).isEmpty();
    assertThat(asg.group("gpu-ng").instances).contains("i-0aaaaaaaaaaaaaaa1");
  }

  @Test
  void shouldLeaveGroupsThatDidNotOptInOrRebalanceThemselvesAlone() {
    asg.add("plain", 1, 4, false, Map.of(), "i-0aaaaaaaaaaaaaaa1");
    asg.add("rebalancing", 1, 4, true, OPTED_IN, "i-0aaaaaaaaaaaaaaa2");

    assertThat(
            replacement
                .raise("i-0aaaaaaaaaaaaaaa1", DrainKind.SPOT_INTERRUPTION)
                .orElseThrow()
                .action())
        .isEqualTo(Action.NOT_OPTED_IN);
    assertThat(replacement.raise("i-0aaaaaaaaaaaaaaa2", DrainKind.REBALANCE).orElseThrow().action())
        .isEqualTo(Action.CAPACITY_REBALANCE);
    assertThat(
            replacement
                .raise("i-0bbbbbbbbbbbbbbb9", DrainKind.SPOT_INTERRUPTION)
                .orElseThrow()
                .action())
        .isEqualTo(Action.NO_GROUP);
    assertThat(asg.setDesiredCalls()).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(
      value = DrainKind.class,
      names = {"HEALTH_SCHEDULED", "STATE_CHANGE", "CAPACITY_BLOCK_EXPIRING", "ASG_TERMINATE"})
  void shouldNotActOnOtherKinds(DrainKind kind) {
    asg.add("gpu-ng", 1, 4, false, OPTED_IN, "i-0aaaaaaaaaaaaaaa1");
    assertThat(replacement.raise("i-0aaaaaaaaaaaaaaa1", kind)).isEmpty();
    assertThat(stub.calls()).isEmpty();
  }

  @Test
  void shouldLeaveTheGroupAsItWasWhenTheRaiseIsRefused() {
    // Given a group whose SetDesiredCapacity the service refuses
    var g = asg.add("gpu-ng", 1, 4, false, OPTED_IN, "i-0aaaaaaaaaaaaaaa1", "i-0aaaaaaaaaaaaaaa2");
    stub.failNext("SetDesiredCapacity", 1, 400, "ValidationError");

    var r = replacement.raise("i-0aaaaaaaaaaaaaaa1", DrainKind.SPOT_INTERRUPTION).orElseThrow();

    assertThat(r.action()).isEqualTo(Action.FAILED);
    assertThat(r.note()).contains("group left as it was").contains("400");
    assertThat(g.desired).isEqualTo(2);
    assertThat(g.tags).containsOnlyKeys(EarlyReplacement.OPT_IN);
  }

  @Test
  void shouldAnswerAValidationErrorAboveMaxSizeAsAutoScalingDoes() {
    asg.add("gpu-ng", 1, 2, false, OPTED_IN, "i-0aaaaaaaaaaaaaaa1", "i-0aaaaaaaaaaaaaaa2");
    var port = new AutoScalingReplacementAdapter(client);

    assertThatThrownBy(() -> port.setDesired("gpu-ng", 3))
        .isInstanceOf(ReplacementPort.Refused.class)
        .hasMessageContaining("ValidationError")
        .hasMessageContaining("above max value 2");
    assertThat(asg.group("gpu-ng").desired).isEqualTo(2);
  }
}
