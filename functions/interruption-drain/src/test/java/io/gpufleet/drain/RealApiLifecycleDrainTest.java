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
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.SimAutoScaling;
import io.gpufleet.sim.real.KwokNodes;
import io.gpufleet.sim.real.RealCluster;
import io.gpufleet.sim.real.RealNamespace;
import io.gpufleet.testkit.real.RealApiServerTest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.autoscaling.AutoScalingClient;

/**
 * Real API server tier for ASG lifecycle hooks: a terminate hook on a node-group node is drained
 * through the real eviction API (PodDisruptionBudgets enforced by the real disruption controller,
 * replacements placed by the real scheduler) while the simulated Auto Scaling group receives the
 * heartbeats and the completion through the real SDK client.
 */
@RealApiServerTest
class RealApiLifecycleDrainTest {
  static final String GROUP = "eks-ng-gpu";
  static final String HOOK = "gpufleet-drain";
  static AwsStubServer stub;
  static AutoScalingClient autoScaling;

  final Recorders.RecordingMetrics metrics = new Recorders.RecordingMetrics();
  final List<String> continuations = new CopyOnWriteArrayList<>();
  SimAutoScaling asg;

  @BeforeAll
  static void startStub() {
    stub = AwsStubServer.start();
    autoScaling =
        AutoScalingClient.builder()
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("AKID", "s")))
            .endpointOverride(stub.endpoint())
            .build();
  }

  @AfterAll
  static void stopStub() {
    autoScaling.close();
    stub.close();
  }

  @BeforeEach
  void reset() {
    stub.reset();
    // real time on purpose: kwok and the controllers of the real API server run on the wall clock,
    // so the drain, its hook and the simulated Auto Scaling group must too
    asg = new SimAutoScaling(stub, io.gpufleet.sim.SimTime.realTime());
  }

  DrainService service(RealCluster cluster) {
    var lifecycle =
        new DrainSettings.Lifecycle(
            Duration.ofSeconds(30),
            Duration.ofSeconds(30),
            Duration.ofHours(1),
            "CONTINUE",
            Duration.ofMinutes(10));
    return DrainWiring.service(
        cluster.client(),
        DrainWiring.Parts.of(
                DrainSettings.defaults("real-api")
                    .withOptions(DrainSettings.Options.DEFAULTS.withLifecycle(lifecycle)))
            .reportingTo(
                metrics, new Recorders.RecordingPublisher(), new Recorders.RecordingNotifier())
            .withLifecycle(
                new AutoScalingLifecycleAdapter(autoScaling),
                (body, delay) -> continuations.add(body)));
  }

  static KwokNodes.Spec ngNode(String name, String instanceId) {
    return KwokNodes.Spec.nodeGroup(
        name, instanceId, "us-east-1a", "g5.12xlarge", "on-demand", "ng-gpu", 4);
  }

  FleetEvent terminate(String instance, String token) {
    return DrainFixture.decode(
        """
        {"version":"0","id":"real-asg-%s","detail-type":"EC2 Instance-terminate Lifecycle Action",
         "source":"aws.autoscaling","account":"123456789012","time":"%s","region":"us-east-1",
         "resources":[],"detail":{"LifecycleActionToken":"%s","AutoScalingGroupName":"%s",
          "LifecycleHookName":"%s","EC2InstanceId":"%s",
          "LifecycleTransition":"autoscaling:EC2_INSTANCE_TERMINATING"}}
        """
            .formatted(instance, Instant.now(), token, GROUP, HOOK, instance));
  }

  static DrainOutcome one(List<DrainOutcome> outcomes) {
    assertThat(outcomes).hasSize(1);
    return outcomes.get(0);
  }

  @Test
  void shouldDrainTheNodeGroupNodeAndThenCompleteItsHook(RealCluster cluster, RealNamespace ns) {
    // Given a node-group node with two pods under a PDB that allows one disruption, and a spare
    String node = ns.createNode(ngNode("ng-a", "i-0feed0000000000a1")).getMetadata().getName();
    var labels = RealNamespace.labels("app", "web");
    ns.createReplicaSet("web", 2, labels);
    assertThat(ns.awaitReadyPods(labels, 2))
        .allSatisfy(p -> assertThat(p.getSpec().getNodeName()).isEqualTo(node));
    ns.createPdb("web", null, "1", labels);
    ns.awaitPdb("web", "allows one disruption", p -> p.getStatus().getDisruptionsAllowed() == 1);
    ns.createNode(ngNode("spare", "i-0feed0000000000a2"));
    String token =
        asg.hold(
            GROUP,
            HOOK,
            "i-0feed0000000000a1",
            FleetEvent.LifecycleAction.TERMINATING,
            Duration.ofMinutes(5),
            "ABANDON");

    // When the terminate hook is handled
    var o =
        one(
            service(cluster)
                .handle(terminate("i-0feed0000000000a1", token), Instant.now().plusSeconds(150)));

    // Then both pods went (one after the other, as the budget allowed) and the hook completed
    assertThat(o.status()).as(o.message()).isEqualTo(Status.DRAINED);
    assertThat(o.podsEvicted()).hasSize(2);
    assertThat(ns.podsOn(node)).isEmpty();
    var after = ns.client().nodes().withName(node).get();
    assertThat(after.getSpec().getUnschedulable()).isTrue();
    assertThat(after.getSpec().getTaints())
        .anySatisfy(t -> assertThat(t.getValue()).isEqualTo("asg-terminate"));
    assertThat(asg.heartbeats()).isNotEmpty();
    assertThat(asg.completions())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.result()).isEqualTo("CONTINUE");
              assertThat(c.byTimeout()).isFalse();
            });
    assertThat(ns.awaitReadyPods(labels, 2))
        .allSatisfy(p -> assertThat(p.getSpec().getNodeName()).isEqualTo(ns.nodeName("spare")));
  }

  @Test
  void shouldHoldTheHookAcrossInvocationsWhileABudgetRefusesAndFinishInTheFollowUp(
      RealCluster cluster, RealNamespace ns) {
    // Given a single pod whose PDB allows no disruption
    String node = ns.createNode(ngNode("ng-b", "i-0feed0000000000b1")).getMetadata().getName();
    var labels = RealNamespace.labels("app", "solo");
    ns.createReplicaSet("solo", 1, labels);
    ns.awaitReadyPods(labels, 1);
    ns.createPdb("solo", "1", null, labels);
    ns.awaitPdb("solo", "counts the pod healthy", p -> p.getStatus().getCurrentHealthy() == 1);
    ns.createNode(ngNode("spare", "i-0feed0000000000b2"));
    String token =
        asg.hold(
            GROUP,
            HOOK,
            "i-0feed0000000000b1",
            FleetEvent.LifecycleAction.TERMINATING,
            Duration.ofMinutes(5),
            "ABANDON");
    var service = service(cluster);

    // When the first invocation has only a few seconds
    var first =
        one(service.handle(terminate("i-0feed0000000000b1", token), Instant.now().plusSeconds(4)));

    // Then the drain goes on later: the action still waits, alive, with a continuation queued
    assertThat(first.status()).as(first.message()).isEqualTo(Status.DRAINING);
    assertThat(cluster.evictions(ns.name())).anySatisfy(e -> assertThat(e.code()).isEqualTo(429));
    assertThat(asg.pending("i-0feed0000000000b1")).isPresent();
    assertThat(asg.completions()).isEmpty();
    assertThat(continuations).hasSize(1);

    // When the budget is relaxed and the follow-up arrives
    ns.client()
        .policy()
        .v1()
        .podDisruptionBudget()
        .inNamespace(ns.name())
        .withName("solo")
        .delete();
    var followUp =
        ((DecodeResult.Decoded)
                LifecycleEvents.decodeSqsBody(
                    continuations.get(0), "us-east-1", new EventDecoder()))
            .event();
    var second = one(service.handle(followUp, Instant.now().plusSeconds(120)));

    // Then it finishes and completes the action once
    assertThat(second.status()).as(second.message()).isEqualTo(Status.DRAINED);
    assertThat(ns.podsOn(node)).isEmpty();
    assertThat(asg.completions())
        .extracting(SimAutoScaling.Completion::result)
        .containsExactly("CONTINUE");
  }
}
