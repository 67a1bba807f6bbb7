package io.gpufleet.drain;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.gpufleet.core.k8s.CheckpointAnnotations;
import io.gpufleet.drain.model.CheckpointReport;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.DrainOutcome.Status;
import io.gpufleet.sim.real.RealCluster;
import io.gpufleet.sim.real.RealNamespace;
import io.gpufleet.testkit.real.RealApiServerTest;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * The checkpoint-aware drain on a real API server, as the drain's identity under deploy/rbac and
 * deploy/admission: it may annotate the opted-in pods and write events.k8s.io Events about them; a
 * workload that watches its own pod (as the docs' snippet does) reports its checkpoint, and one
 * that never reports is evicted at the latest safe moment, before the deadline.
 */
@RealApiServerTest
class RealApiCheckpointDrainTest {
  static final ResourceDefinitionContext EVENTS =
      new ResourceDefinitionContext.Builder()
          .withGroup("events.k8s.io")
          .withVersion("v1")
          .withKind("Event")
          .withPlural("events")
          .withNamespaced(true)
          .build();

  Pod trainer(RealNamespace ns, String name) {
    var labels = RealNamespace.labels("app", name);
    var template = ns.podTemplate(labels, 1);
    var annotations = new HashMap<>(template.getMetadata().getAnnotations());
    annotations.put(CheckpointAnnotations.CHECKPOINT, "90s");
    return ns.client()
        .pods()
        .inNamespace(ns.name())
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(ns.name())
                .withLabels(labels)
                .withAnnotations(annotations)
                .endMetadata()
                .withSpec(template.getSpec())
                .build())
        .create();
  }

  @Test
  void shouldTellTheJobsWaitForTheOneThatCheckpointsAndEvictTheSilentOneInTime(
      RealCluster cluster, RealNamespace ns) throws Exception {
    // Given a Spot node with two training jobs that opted in, one of which watches its own pod and
    // reports its checkpoint one second after it is told
    String node =
        ns.createNode(RealApiDrainTest.spotNode("train-a", "i-0c4ec0000000000a1"))
            .getMetadata()
            .getName();
    trainer(ns, "trainer-a");
    trainer(ns, "trainer-b");
    ns.awaitReadyPods(RealNamespace.labels("app", "trainer-a"), 1);
    ns.awaitReadyPods(RealNamespace.labels("app", "trainer-b"), 1);
    var seen = new ConcurrentHashMap<String, String>();
    var pods = ns.client().pods().inNamespace(ns.name());
    try (var watch =
        pods.withName("trainer-a")
            .watch(
                new Watcher<Pod>() {
                  @Override
                  public void eventReceived(Action action, Pod pod) {
                    var a = pod.getMetadata().getAnnotations();
                    if (a != null
                        && a.containsKey(CheckpointAnnotations.KIND)
                        && seen.putIfAbsent("kind", a.get(CheckpointAnnotations.KIND)) == null) {
                      seen.put("deadline", a.get(CheckpointAnnotations.DEADLINE));
                      Thread.ofVirtual()
                          .start(
                              () -> {
                                try {
                                  Thread.sleep(1000); // writing the checkpoint
                                } catch (InterruptedException e) {
                                  return;
                                }
                                pods.withName("trainer-a")
                                    .patch(
                                        PatchContext.of(PatchType.JSON_MERGE),
                                        "{\"metadata\":{\"annotations\":{\""
                                            + CheckpointAnnotations.DONE
                                            + "\":\""
                                            + Instant.now()
                                            + "\"}}}");
                              });
                    }
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                })) {

      // When its Spot warning is handled, sent 90 s ago (20 s to the deadline, less the margin)
      DrainOutcome o =
          RealApiDrainTest.drainOnSpotWarning(
              new RealApiDrainTest().service(cluster),
              "i-0c4ec0000000000a1",
              Instant.now().minusSeconds(90));

      // Then both jobs were evicted, the deadline met
      assertThat(o.status()).as(o.message()).isEqualTo(Status.DRAINED);
      assertThat(o.deadlineMet()).isTrue();
      assertThat(ns.podsOn(node)).isEmpty();
      Map<String, CheckpointReport> byPod = new HashMap<>();
      o.checkpoints().forEach(c -> byPod.put(c.pod(), c));
      var a = byPod.get(ns.name() + "/trainer-a");
      var b = byPod.get(ns.name() + "/trainer-b");
      // and the watching job saw the kind and the deadline, checkpointed, and was evicted after
      assertThat(seen).containsEntry("kind", "spot-interruption");
      assertThat(seen).containsEntry("deadline", o.deadline().toString());
      assertThat(a.made()).as(a.toString()).isTrue();
      assertThat(a.evictedAt()).isAfterOrEqualTo(Instant.parse(a.checkpointDone()));
      assertThat(a.evictedAt()).isBefore(a.latestEviction());
      // and the silent one was evicted at its latest safe moment, its grace ending by the deadline
      assertThat(b.made()).isFalse();
      assertThat(b.checkpointDone()).isEqualTo(CheckpointReport.NOT_REPORTED);
      assertThat(b.evictedAt()).isAfterOrEqualTo(b.latestEviction());
      assertThat(b.evictedAt().plusSeconds(RealNamespace.GRACE_SECONDS)).isBefore(o.deadline());
      // and each was told with an events.k8s.io Event regarding it, written as the drain
      var events =
          ns.client().genericKubernetesResources(EVENTS).inNamespace(ns.name()).list().getItems();
      for (String name : new String[] {"trainer-a", "trainer-b"}) {
        assertThat(events)
            .as("Event regarding " + name)
            .anySatisfy(
                (GenericKubernetesResource e) -> {
                  @SuppressWarnings("unchecked")
                  var regarding =
                      (Map<String, Object>) e.getAdditionalProperties().get("regarding");
                  assertThat(regarding).containsEntry("name", name).containsEntry("kind", "Pod");
                  assertThat(e.getAdditionalProperties())
                      .containsEntry("reason", "InterruptionWarning")
                      .containsEntry("reportingController", "gpufleet.io/interruption-drain");
                });
      }
    }
  }
}
