package io.gpufleet.drain;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.event.DecodeResult;
import io.gpufleet.core.event.EventDecoder;
import io.gpufleet.core.event.FleetEvent;
import io.gpufleet.core.event.LifecycleEvents;
import io.gpufleet.drain.aws.AutoScalingLifecycleAdapter;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.DrainOutcome.Status;
import io.gpufleet.drain.wiring.DrainWiring;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.SimAutoScaling;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.autoscaling.AutoScalingClient;

/**
 * ASG lifecycle hooks end to end over the simulated cluster and a simulated Auto Scaling service
 * reached through the real SDK client: terminate drains with heartbeats and completes, a long drain
 * continues in a follow-up, launch completes when the node is Ready.
 */
class LifecycleDrainTest {
  static final String GROUP = "gpu-ng-asg";
  static final String HOOK = "gpufleet-drain";
  static final String INSTANCE = "i-0a5c0000000000001";
  static final java.time.Instant START = DrainFixture.START;
  static AwsStubServer stub;
  AutoScalingClient client;

  DrainFixture f;
  SimAutoScaling asg;
  final List<Scheduled> continuations = new CopyOnWriteArrayList<>();

  record Scheduled(String body, Duration delay) {}

  final ContinuationPort queue = (body, delay) -> continuations.add(new Scheduled(body, delay));

  @BeforeAll
  static void startStub() {
    stub = AwsStubServer.start();
  }

  @AfterAll
  static void stopStub() {
    stub.close();
  }

  @BeforeEach
  void start() {
    stub.reset();
    f = new DrainFixture();
    client = DrainFixture.autoScaling(stub, f.time);
    asg = new SimAutoScaling(stub, f.time);
    use(DrainSettings.Lifecycle.DEFAULTS, false);
  }

  @AfterEach
  void stop() {
    client.close();
    f.close();
  }

  void use(DrainSettings.Lifecycle lifecycle, boolean dryRun) {
    var settings =
        DrainSettings.defaults("sim-cluster")
            .withOptions(
                DrainSettings.Options.DEFAULTS.withLifecycle(lifecycle).withDryRun(dryRun));
    f.settings = settings;
    f.service =
        DrainWiring.service(
            f.client,
            DrainWiring.Parts.of(settings)
                .reportingTo(f.metrics, f.publisher, f.notifier)
                .timedBy(f.time)
                .withLifecycle(new AutoScalingLifecycleAdapter(client), queue));
  }

  String hold(String transition) {
    return asg.hold(GROUP, HOOK, INSTANCE, transition, Duration.ofMinutes(5), "ABANDON");
  }

  FleetEvent hookEvent(String id, String token, boolean terminate) {
    return DrainFixture.decode(
        """
        {"version":"0","id":"%s","detail-type":"EC2 Instance-%s Lifecycle Action",
         "source":"aws.autoscaling","account":"123456789012","time":"%s","region":"us-east-1",
         "resources":["arn:aws:autoscaling:us-east-1:123456789012:autoScalingGroup:59fcbb81-bd02-485d-80ce-563ef5b237bf:autoScalingGroupName/%s"],
         "detail":{"LifecycleActionToken":"%s","AutoScalingGroupName":"%s",
          "LifecycleHookName":"%s","EC2InstanceId":"%s",
          "LifecycleTransition":"autoscaling:EC2_INSTANCE_%s"}}
        """
            .formatted(
                id,
                terminate ? "terminate" : "launch",
                f.time.now(),
                GROUP,
                token,
                GROUP,
                HOOK,
                INSTANCE,
                terminate ? "TERMINATING" : "LAUNCHING"));
  }

  DrainOutcome handle(FleetEvent event, Duration invocation) {
    var out = f.service.handle(event, f.time.now().plus(invocation));
    assertThat(out).hasSize(1);
    return out.get(0);
  }

  /** A node-group node with two web pods and a DaemonSet pod. */
  void nodeGroupNode() {
    f.cluster.create(
        SimCluster.gpuNode(
            "ng-node", INSTANCE, "us-east-1a", "g5.12xlarge", "on-demand", null, "gpu-ng", 4));
    for (int i = 0; i < 2; i++) {
      f.cluster.create(
          SimCluster.runningPod(
              "apps", "web-" + i, "ng-node", "ReplicaSet", "web", Map.of("app", "web"), 30, 0));
    }
    f.cluster.create(
        SimCluster.runningPod(
            "kube-system", "dcgm", "ng-node", "DaemonSet", "dcgm", Map.of("app", "dcgm"), 30, 0));
  }

  /** A pod whose PodDisruptionBudget allows no eviction. */
  void blockedPod() {
    f.cluster.create(
        SimCluster.runningPod(
            "apps", "solo-0", "ng-node", "ReplicaSet", "solo", Map.of("app", "solo"), 30, 0));
    f.cluster.create(SimCluster.pdb("apps", "solo", Map.of("app", "solo"), "1", null, 1));
    f.cluster.refreshPdbStatus("apps", "solo");
  }

  boolean cordonedAndTainted() {
    var n = f.cluster.node("ng-node").orElseThrow();
    return Boolean.TRUE.equals(n.getSpec().getUnschedulable())
        && n.getSpec().getTaints().stream()
            .anyMatch(
                t ->
                    t.getKey().equals("gpufleet.io/interruption")
                        && t.getValue().equals("asg-terminate"));
  }

  @Test
  void shouldTaintCordonDrainAndThenCompleteTheHookWithContinue() {
    nodeGroupNode();
    String token = hold(FleetEvent.LifecycleAction.TERMINATING);

    var o = handle(hookEvent("ev-1", token, true), Duration.ofMinutes(2));

    assertThat(o.status()).as(o.message()).isEqualTo(Status.DRAINED);
    assertThat(o.kind()).isEqualTo("asg-terminate");
    assertThat(o.podsEvicted()).containsExactlyInAnyOrder("apps/web-0", "apps/web-1");
    assertThat(o.lifecycle().result()).isEqualTo("CONTINUE");
    assertThat(o.lifecycle().heartbeats()).isEqualTo(1);
    assertThat(cordonedAndTainted()).isTrue();
    assertThat(asg.completions())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.result()).isEqualTo("CONTINUE");
              assertThat(c.byTimeout()).isFalse();
            });
    // the heartbeat came before the completion, and no follow-up was needed
    assertThat(asg.heartbeats().get(0).at()).isBeforeOrEqualTo(asg.completions().get(0).at());
    // pods that go at once: the whole drain happens at the instant the event arrived
    assertThat(asg.heartbeats())
        .singleElement()
        .satisfies(h -> assertThat(h.at()).isEqualTo(START));
    assertThat(asg.completions().get(0).at()).isEqualTo(START);
    assertThat(continuations).isEmpty();
    assertThat(f.publisher.published).hasSize(1);
  }

  @Test
  void shouldKeepTheHeartbeatAndContinueInAFollowUpWhileAPodRemains() {
    nodeGroupNode();
    blockedPod();
    String token = hold(FleetEvent.LifecycleAction.TERMINATING);
    use(
        new DrainSettings.Lifecycle(
            Duration.ofSeconds(30),
            Duration.ofSeconds(45),
            Duration.ofHours(1),
            "CONTINUE",
            Duration.ofMinutes(10)),
        false);

    // When the first invocation ends with the PDB still refusing
    var first = handle(hookEvent("ev-2", token, true), Duration.ofSeconds(40));

    // Then the action is still waiting, alive, and a follow-up is scheduled 45 s later
    assertThat(first.status()).as(first.message()).isEqualTo(Status.DRAINING);
    assertThat(first.podsNotEvicted()).extracting(r -> r.pod()).containsExactly("apps/solo-0");
    assertThat(first.lifecycle().result()).isNull();
    assertThat(first.lifecycle().nextCheck()).isNotNull();
    assertThat(asg.completions()).isEmpty();
    assertThat(asg.pending(INSTANCE)).isPresent();
    // at the start, once 30 s had passed (at the blocked pod's next retry, so up to a backoff
    // later), and at the end of the 40 s invocation to keep the action alive for the follow-up
    assertThat(asg.heartbeats())
        .extracting(SimAutoScaling.Heartbeat::at)
        .hasSize(3)
        .satisfies(
            at -> {
              assertThat(at.get(0)).isEqualTo(START);
              assertThat(at.get(1))
                  .isBetween(
                      START.plusSeconds(30), START.plusSeconds(30).plus(Drainer.BACKOFF_MAX));
              assertThat(at.get(2)).isEqualTo(START.plusSeconds(40));
            });
    assertThat(continuations)
        .singleElement()
        .satisfies(c -> assertThat(c.delay()).isEqualTo(Duration.ofSeconds(45)));
    assertThat(f.publisher.published).as("no outcome event until the drain ends").isEmpty();

    // When the budget is lifted and the follow-up arrives (decoded as the SQS path decodes it)
    f.client.policy().v1().podDisruptionBudget().inNamespace("apps").withName("solo").delete();
    var decoded =
        LifecycleEvents.decodeSqsBody(continuations.get(0).body(), "us-east-1", new EventDecoder());
    var followUp = ((DecodeResult.Decoded) decoded).event();
    var second = handle(followUp, Duration.ofMinutes(2));

    // Then it drains the rest and completes the action once
    assertThat(second.status()).as(second.message()).isEqualTo(Status.DRAINED);
    assertThat(second.podsEvicted()).contains("apps/solo-0");
    assertThat(second.lifecycle().round()).isEqualTo(1);
    assertThat(second.lifecycle().heartbeats()).isGreaterThan(first.lifecycle().heartbeats());
    assertThat(asg.completions())
        .extracting(SimAutoScaling.Completion::result)
        .containsExactly("CONTINUE");
    assertThat(continuations).hasSize(1);
  }

  @Test
  void shouldCompleteWithTheConfiguredResultWhenTheDrainLimitIsReached() {
    nodeGroupNode();
    blockedPod();
    String token = hold(FleetEvent.LifecycleAction.TERMINATING);
    use(
        new DrainSettings.Lifecycle(
            Duration.ofSeconds(30),
            Duration.ofSeconds(45),
            Duration.ofSeconds(20),
            "ABANDON",
            Duration.ofMinutes(10)),
        false);

    var o = handle(hookEvent("ev-3", token, true), Duration.ofMinutes(2));

    assertThat(o.status()).as(o.message()).isEqualTo(Status.PARTIAL);
    assertThat(o.message()).contains("limit");
    assertThat(o.lifecycle().result()).isEqualTo("ABANDON");
    assertThat(asg.completions())
        .extracting(SimAutoScaling.Completion::result)
        .containsExactly("ABANDON");
    assertThat(continuations).isEmpty();
  }

  @Test
  void shouldLetTheTerminationGoOnAtOnceWhenNoNodeHasTheInstance() {
    String token = hold(FleetEvent.LifecycleAction.TERMINATING);

    var o = handle(hookEvent("ev-4", token, true), Duration.ofMinutes(2));

    assertThat(o.status()).isEqualTo(Status.NOT_IN_CLUSTER);
    assertThat(o.lifecycle().result()).isEqualTo("CONTINUE");
    assertThat(asg.completions())
        .extracting(SimAutoScaling.Completion::result)
        .containsExactly("CONTINUE");
    assertThat(f.cluster.requests()).noneMatch(r -> r.method().equals("PATCH"));
  }

  @Test
  void shouldTreatARedeliveredHookAsADuplicate() {
    nodeGroupNode();
    String token = hold(FleetEvent.LifecycleAction.TERMINATING);
    var event = hookEvent("ev-5", token, true);
    handle(event, Duration.ofMinutes(2));

    var again = handle(event, Duration.ofMinutes(2));

    assertThat(again.status()).isEqualTo(Status.DUPLICATE);
    assertThat(stub.calls("CompleteLifecycleAction")).hasSize(1);
  }

  @Test
  void shouldStopWhenTheActionIsNoLongerWaiting() {
    nodeGroupNode();

    // a token Auto Scaling does not know (the hook timed out or someone completed it)
    var o =
        handle(
            hookEvent("ev-6", "00000000-0000-0000-0000-000000000000", true), Duration.ofMinutes(2));

    assertThat(o.status()).isEqualTo(Status.NO_ACTION);
    assertThat(o.message()).contains("no longer waiting before the node was cordoned");
    assertThat(f.evictionRequests()).isZero();
    // the heartbeat came first: the node was not even cordoned or claimed
    assertThat(f.cluster.requests()).noneMatch(r -> r.method().equals("PATCH"));
  }

  @Test
  void shouldCompleteALaunchHookOnceTheNodeIsReady() {
    nodeGroupNode();
    String token = hold(FleetEvent.LifecycleAction.LAUNCHING);

    var o = handle(hookEvent("ev-7", token, false), Duration.ofMinutes(2));

    assertThat(o.status()).isEqualTo(Status.HOOK_COMPLETED);
    assertThat(o.kind()).isEqualTo("asg-launch");
    assertThat(o.node()).isEqualTo("ng-node");
    assertThat(asg.completions())
        .extracting(SimAutoScaling.Completion::result)
        .containsExactly("CONTINUE");
    assertThat(f.cluster.requests()).noneMatch(r -> r.method().equals("PATCH"));
  }

  @Test
  void shouldWaitInAFollowUpForALaunchWhoseNodeHasNotJoined() {
    String token = hold(FleetEvent.LifecycleAction.LAUNCHING);

    var o = handle(hookEvent("ev-8", token, false), Duration.ofSeconds(20));

    assertThat(o.status()).isEqualTo(Status.WAITING);
    assertThat(asg.completions()).isEmpty();
    assertThat(asg.heartbeats()).hasSize(1);
    assertThat(continuations).hasSize(1);
  }

  @Test
  void shouldLetALaunchGoOnWhenNoNodeJoinedWithinTheReadyTimeout() {
    String token = hold(FleetEvent.LifecycleAction.LAUNCHING);
    use(
        new DrainSettings.Lifecycle(
            Duration.ofSeconds(60),
            Duration.ofSeconds(60),
            Duration.ofHours(1),
            "CONTINUE",
            Duration.ZERO),
        false);

    var o = handle(hookEvent("ev-9", token, false), Duration.ofMinutes(2));

    assertThat(o.status()).isEqualTo(Status.HOOK_COMPLETED);
    assertThat(o.message()).contains("no node joined");
    assertThat(asg.completions())
        .extracting(SimAutoScaling.Completion::result)
        .containsExactly("CONTINUE");
  }

  @Test
  void shouldChangeNothingInADryRunAndListThePlannedSteps() {
    nodeGroupNode();
    String token = hold(FleetEvent.LifecycleAction.TERMINATING);
    use(DrainSettings.Lifecycle.DEFAULTS, true);

    var o = handle(hookEvent("ev-10", token, true), Duration.ofMinutes(2));

    assertThat(o.status()).isEqualTo(Status.DRY_RUN);
    assertThat(o.planned())
        .contains("cordon", "evict apps/web-0", "evict apps/web-1")
        .anyMatch(s -> s.startsWith("taint gpufleet.io/interruption=asg-terminate:NoSchedule"))
        .anyMatch(s -> s.startsWith("complete lifecycle action " + HOOK));
    assertThat(f.cluster.requests()).noneMatch(r -> !r.method().equals("GET"));
    assertThat(stub.calls()).isEmpty();
    assertThat(asg.pending(INSTANCE)).isPresent();
  }
}
