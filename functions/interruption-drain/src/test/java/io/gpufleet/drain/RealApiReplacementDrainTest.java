package io.gpufleet.drain;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.gpufleet.drain.aws.AutoScalingLifecycleAdapterTest;
import io.gpufleet.drain.aws.AutoScalingReplacementAdapter;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.DrainOutcome.Status;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.SimAutoScalingGroups;
import io.gpufleet.sim.real.KwokNodes;
import io.gpufleet.sim.real.RealCluster;
import io.gpufleet.sim.real.RealNamespace;
import io.gpufleet.testkit.real.RealApiServerTest;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Replacement before removal on a real API server, as the drain's identity: a node group's
 * rebalance recommendation raises its (simulated) Auto Scaling group, the new instance's node joins
 * (kwok) a few seconds later, and the node's inference replicas leave only once it is Ready, while
 * its bare batch pod leaves at once; the old instance is then terminated with
 * ShouldDecrementDesiredCapacity.
 */
@RealApiServerTest
class RealApiReplacementDrainTest {
  static final String OLD = "i-0e5e1ac0000000a01";

  /** Launch to node registration of the replacement instance (a real GPU node takes minutes). */
  static final Duration BOOT = Duration.ofSeconds(4);

  @Test
  void shouldMoveTheReplicasOnlyOnceTheNodeGroupsReplacementIsReady(
      RealCluster cluster, RealNamespace ns) throws Exception {
    // Given a node group node with two inference replicas and a bare batch pod, in an opted-in
    // group of one
    String oldNode =
        ns.createNode(
                KwokNodes.Spec.nodeGroup(
                    "ng-old", OLD, "us-east-1a", "g6e.12xlarge", "spot", "ng-gpu", 4))
            .getMetadata()
            .getName();
    var replicas = RealNamespace.labels("app", "vllm");
    ns.createReplicaSet("vllm", 2, replicas);
    ns.awaitReadyPods(replicas, 2);
    var batchLabels = RealNamespace.labels("app", "batch");
    ns.client()
        .pods()
        .inNamespace(ns.name())
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName("batch-0")
                .withNamespace(ns.name())
                .withLabels(batchLabels)
                .withAnnotations(ns.podTemplate(batchLabels, 0).getMetadata().getAnnotations())
                .endMetadata()
                .withSpec(ns.podTemplate(batchLabels, 0).getSpec())
                .build())
        .create();
    ns.awaitReadyPods(batchLabels, 1);

    try (var stub = AwsStubServer.start();
        var client = AutoScalingLifecycleAdapterTest.client(stub.endpoint())) {
      var asg = new SimAutoScalingGroups(stub);
      asg.add("ng-gpu", 1, 3, false, Map.of(EarlyReplacement.OPT_IN, "true"), OLD);
      var joining = new AtomicReference<Instant>();
      var newNode = new AtomicReference<String>();
      // the launched instance registers its node after BOOT (the test's stand-in for EC2 + kubelet)
      asg.onLaunch(
          (group, id) ->
              Thread.ofVirtual()
                  .start(
                      () -> {
                        try {
                          Thread.sleep(BOOT.toMillis());
                        } catch (InterruptedException e) {
                          return;
                        }
                        joining.set(Instant.now());
                        var node =
                            ns.createNode(
                                KwokNodes.Spec.nodeGroup(
                                    "ng-new",
                                    id,
                                    "us-east-1a",
                                    "g6e.12xlarge",
                                    "spot",
                                    "ng-gpu",
                                    4));
                        newNode.set(node.getMetadata().getName());
                      }));
      var deleted = new ConcurrentHashMap<String, Instant>();
      try (var watch =
          ns.client()
              .pods()
              .inNamespace(ns.name())
              .watch(
                  new Watcher<Pod>() {
                    @Override
                    public void eventReceived(Action action, Pod pod) {
                      if (pod.getMetadata().getDeletionTimestamp() != null
                          || action == Action.DELETED) {
                        deleted.putIfAbsent(pod.getMetadata().getName(), Instant.now());
                      }
                    }

                    @Override
                    public void onClose(WatcherException cause) {}
                  })) {
        var service = new RealApiDrainTest().service(cluster);
        service.replaceEarlyWith(new AutoScalingReplacementAdapter(client));

        // When the rebalance recommendation for the old instance arrives
        var event =
            DrainFixture.decode(
                """
                {"version":"0","id":"real-rebalance-%s","detail-type":"EC2 Instance Rebalance Recommendation",
                 "source":"aws.ec2","account":"123456789012","time":"%s","region":"us-east-1",
                 "resources":["arn:aws:ec2:us-east-1a:instance/%s"],"detail":{"instance-id":"%s"}}
                """
                    .formatted(OLD, Instant.now(), OLD, OLD));
        DrainOutcome o = service.handle(event, Instant.now().plus(Duration.ofMinutes(2))).get(0);

        // Then the node drained, the replicas after the replacement was Ready, the batch pod before
        assertThat(o.status()).as(o.message()).isEqualTo(Status.DRAINED);
        var r = o.replacement();
        assertThat(r.action()).isEqualTo("RAISED");
        assertThat(r.heldUntil()).isEqualTo("replacement Ready");
        assertThat(r.inferenceHeld()).hasSize(2);
        // (the replacement's node did not exist before `joining`, so nothing evicted before then
        // can have waited for it)
        assertThat(joining.get()).isNotNull();
        assertThat(deleted.get("batch-0")).isBefore(joining.get());
        for (String pod : r.inferenceHeld()) {
          String name = pod.substring(pod.indexOf('/') + 1);
          assertThat(deleted.get(name)).as(name).isAfter(r.replacementReadyAt().minusMillis(1));
          assertThat(deleted.get(name)).as(name).isAfter(joining.get());
        }
        assertThat(ns.podsOn(oldNode)).isEmpty();
        // and the replicas came back on the replacement node
        var back = ns.awaitReadyPods(replicas, 2);
        assertThat(back)
            .allSatisfy(p -> assertThat(p.getSpec().getNodeName()).isEqualTo(newNode.get()));
        // and the group was raised once and is back at its size, without the old instance
        assertThat(r.terminatedAt()).isNotNull();
        assertThat(asg.setDesiredCalls()).containsExactly("ng-gpu=2");
        assertThat(asg.group("ng-gpu").desired).isEqualTo(1);
        assertThat(asg.group("ng-gpu").instances).doesNotContain(OLD).hasSize(1);
      }
    }
  }
}
