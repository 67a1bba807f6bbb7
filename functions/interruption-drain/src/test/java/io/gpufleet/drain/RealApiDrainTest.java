package io.gpufleet.drain;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.LocalContext;
import io.gpufleet.drain.k8s.DrainClusterAdapter;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.DrainOutcome.Status;
import io.gpufleet.drain.model.EvictionResult;
import io.gpufleet.drain.model.PodInfo;
import io.gpufleet.drain.model.PodReport;
import io.gpufleet.drain.wiring.DrainHandler;
import io.gpufleet.drain.wiring.DrainHandlerEventsTest;
import io.gpufleet.drain.wiring.DrainWiring;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.real.FunctionIdentity;
import io.gpufleet.sim.real.KwokNodes;
import io.gpufleet.sim.real.RealCluster;
import io.gpufleet.sim.real.RealNamespace;
import io.gpufleet.testkit.real.RealApiServerTest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Real API server tier (as the drain's own identity, {@code cluster.client()}, under the RBAC and
 * admission policies of deploy/): the drain, wired as the Lambda wires it ({@link
 * DrainWiring#service}) over a real kube-apiserver whose eviction subresource enforces
 * PodDisruptionBudgets with the status the real disruption controller computes; a real scheduler
 * and ReplicaSet controller create and place replacements, and kwok runs the pods on fake GPU
 * nodes.
 */
@RealApiServerTest
class RealApiDrainTest {
  static final String CLUSTER = "real-api";
  static final String TAINT_KEY = "gpufleet.io/interruption";

  final Recorders.RecordingPublisher publisher = new Recorders.RecordingPublisher();
  final Recorders.RecordingNotifier notifier = new Recorders.RecordingNotifier();
  final Recorders.RecordingMetrics metrics = new Recorders.RecordingMetrics();

  DrainService service(RealCluster cluster) {
    return DrainWiring.service(
        cluster.client(),
        DrainWiring.Parts.of(DrainSettings.defaults(CLUSTER))
            .reportingTo(metrics, publisher, notifier));
  }

  static KwokNodes.Spec spotNode(String name, String instanceId) {
    return KwokNodes.Spec.karpenter(
        name, instanceId, "us-east-1a", "g6e.12xlarge", "spot", "gpu-inference", 4);
  }

  static DrainOutcome drainOnSpotWarning(DrainService service, String instanceId) {
    return drainOnSpotWarning(service, instanceId, Instant.now());
  }

  /** The warning as if EC2 had sent it at {@code sent} (the deadline is sent + 120 s). */
  static DrainOutcome drainOnSpotWarning(DrainService service, String instanceId, Instant sent) {
    var event =
        DrainFixture.decode(
            """
            {"version":"0","id":"real-%s","detail-type":"EC2 Spot Instance Interruption Warning",
             "source":"aws.ec2","account":"123456789012","time":"%s","region":"us-east-1",
             "resources":["arn:aws:ec2:us-east-1a:instance/%s"],
             "detail":{"instance-id":"%s","instance-action":"terminate"}}
            """
                .formatted(instanceId, sent, instanceId, instanceId));
    List<DrainOutcome> outcomes = service.handle(event, Instant.now().plus(Duration.ofMinutes(3)));
    assertThat(outcomes).hasSize(1);
    return outcomes.get(0);
  }

  /** Starts {@code replicas} pods on a node that is alone in its scope, so they all land there. */
  static List<Pod> workloadOn(RealNamespace ns, String node, String app, int replicas) {
    var labels = RealNamespace.labels("app", app);
    ns.createReplicaSet(app, replicas, labels);
    List<Pod> pods = ns.awaitReadyPods(labels, replicas);
    assertThat(pods).allSatisfy(p -> assertThat(p.getSpec().getNodeName()).isEqualTo(node));
    return pods;
  }

  @Test
  void shouldEvictEveryPodAndLeaveTheNodeCordonedTaintedAndEmpty(
      RealCluster cluster, RealNamespace ns) {
    // Given a spot GPU node running three ReplicaSet pods, and a second node for replacements
    String node = ns.createNode(spotNode("spot-a", "i-0feed000000000001")).getMetadata().getName();
    List<Pod> pods = workloadOn(ns, node, "web", 3);
    ns.createNode(spotNode("spare", "i-0feed000000000002"));

    // When the spot interruption warning for its instance is handled
    DrainOutcome outcome = drainOnSpotWarning(service(cluster), "i-0feed000000000001");

    // Then every pod was evicted, and the API server no longer has them
    assertThat(outcome.status()).as(outcome.message()).isEqualTo(Status.DRAINED);
    assertThat(outcome.podsEvicted())
        .containsExactlyInAnyOrderElementsOf(
            pods.stream().map(p -> ns.name() + "/" + p.getMetadata().getName()).toList());
    assertThat(outcome.deadlineMet()).isTrue();
    assertThat(ns.podsOn(node)).isEmpty();
    for (Pod p : pods) {
      assertThat(
              ns.client().pods().inNamespace(ns.name()).withName(p.getMetadata().getName()).get())
          .isNull();
    }
    // the node is cordoned and tainted in the real API, with the drain's marker
    var after = ns.client().nodes().withName(node).get();
    assertThat(after.getSpec().getUnschedulable()).isTrue();
    assertThat(after.getSpec().getTaints())
        .anySatisfy(t -> assertThat(t.getKey()).isEqualTo(TAINT_KEY));
    assertThat(after.getMetadata().getAnnotations()).containsKey(DrainMarker.ANNOTATION);
    // and the ReplicaSet's replacements run on the other node
    assertThat(ns.awaitReadyPods(RealNamespace.labels("app", "web"), 3))
        .allSatisfy(p -> assertThat(p.getSpec().getNodeName()).isEqualTo(ns.nodeName("spare")));
  }

  @Test
  void shouldBeRefusedWith429WhileTheBudgetAllowsNoDisruption(
      RealCluster cluster, RealNamespace ns) {
    // Given one pod whose PDB requires it to stay available
    String node = ns.createNode(spotNode("solo", "i-0feed000000000011")).getMetadata().getName();
    Pod pod = workloadOn(ns, node, "solo", 1).get(0);
    ns.createPdb("solo", "1", null, RealNamespace.labels("app", "solo"));
    var budget =
        ns.awaitPdb("solo", "counts the pod healthy", p -> p.getStatus().getCurrentHealthy() == 1);
    assertThat(budget.getStatus().getDisruptionsAllowed()).isZero();

    // When the gateway evicts it
    var gateway = new DrainClusterAdapter(cluster.client());
    PodInfo info = gateway.podsOnNode(node).get(0);
    assertThat(info.uid()).isEqualTo(pod.getMetadata().getUid());
    EvictionResult result = gateway.evict(info, 30);

    // Then the API server answered 429 (the gateway's Blocked) and the pod is still there
    assertThat(result).isInstanceOf(EvictionResult.Blocked.class);
    assertThat(cluster.evictions(ns.name()))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.code()).isEqualTo(429);
              assertThat(e.message()).contains("disruption budget");
            });
    assertThat(ns.podsOn(node))
        .extracting(p -> p.getMetadata().getUid())
        .contains(pod.getMetadata().getUid());
    // and the drain's report names the budget with the controller's numbers
    var budgets = gateway.budgetsFor(List.of(info));
    assertThat(budgets.get(ns.name() + "/" + pod.getMetadata().getName()))
        .singleElement()
        .satisfies(
            b -> {
              assertThat(b.name()).isEqualTo("solo");
              assertThat(b.disruptionsAllowed()).isZero();
              assertThat(b.currentHealthy()).isEqualTo(1);
              assertThat(b.desiredHealthy()).isEqualTo(1);
            });
  }

  @Test
  void shouldRetryThe429UntilTheReplacementPodIsReady(RealCluster cluster, RealNamespace ns) {
    // Given two pods on the node and a PDB with minAvailable 1: one may go at a time
    String node = ns.createNode(spotNode("spot-b", "i-0feed000000000021")).getMetadata().getName();
    var labels = RealNamespace.labels("app", "api");
    List<Pod> pods = workloadOn(ns, node, "api", 2);
    ns.createPdb("api", "1", null, labels);
    ns.awaitPdb("api", "allows one disruption", p -> p.getStatus().getDisruptionsAllowed() == 1);
    ns.createNode(spotNode("spare", "i-0feed000000000022"));
    // replacements take 3 s to become Ready, as a real workload takes time to start
    ns.slowReadiness("api", Duration.ofSeconds(3));

    // When the node is drained (both evictions are sent at once)
    DrainOutcome outcome = drainOnSpotWarning(service(cluster), "i-0feed000000000021");

    // Then both pods were evicted in the end
    assertThat(outcome.status()).as(outcome.message()).isEqualTo(Status.DRAINED);
    assertThat(outcome.podsEvicted()).hasSize(2);
    assertThat(ns.podsOn(node)).isEmpty();
    assertThat(ns.client().pods().inNamespace(ns.name()).withLabels(labels).list().getItems())
        .extracting(p -> p.getMetadata().getUid())
        .doesNotContainAnyElementsOf(pods.stream().map(p -> p.getMetadata().getUid()).toList());
    // but one of them only after 429s and retries: the API server's audit log shows the first
    // pod's eviction accepted, the other pod's refused with 429 (and retried with backoff) until
    // its eviction was accepted, no earlier than the first pod's replacement turned Ready
    List<RealCluster.Eviction> evictions = cluster.evictions(ns.name());
    var refusedPods =
        evictions.stream().filter(e -> e.code() == 429).map(RealCluster.Eviction::pod).distinct();
    String refused = refusedPods.findFirst().orElseThrow(() -> new AssertionError(evictions));
    assertThat(evictions)
        .as(evictions.toString())
        .allSatisfy(e -> assertThat(e.code()).isIn(201, 429))
        .filteredOn(e -> e.code() == 429)
        .allSatisfy(e -> assertThat(e.pod()).isEqualTo(refused))
        .allSatisfy(e -> assertThat(e.message()).contains("disruption budget"));
    assertThat(evictions).filteredOn(e -> e.code() == 201).hasSize(2);
    assertThat(evictions.get(evictions.size() - 1).pod()).isEqualTo(refused);
    Instant secondAccepted =
        evictions.stream()
            .filter(e -> e.code() == 201 && e.pod().equals(refused))
            .findFirst()
            .orElseThrow()
            .at();
    List<Pod> replacements = ns.awaitReadyPods(labels, 2);
    assertThat(replacements)
        .allSatisfy(p -> assertThat(p.getSpec().getNodeName()).isEqualTo(ns.nodeName("spare")));
    Instant firstReplacementReady =
        replacements.stream()
            .map(RealApiDrainTest::readySince)
            .min(Instant::compareTo)
            .orElseThrow();
    assertThat(secondAccepted).isAfterOrEqualTo(firstReplacementReady);
    // (the replacement could not be Ready sooner than 3 s after the first eviction)
    Instant firstAccepted =
        evictions.stream().filter(e -> e.code() == 201).findFirst().orElseThrow().at();
    assertThat(Duration.between(firstAccepted, secondAccepted))
        .isGreaterThanOrEqualTo(Duration.ofSeconds(3));
  }

  @Test
  void shouldReportAPodWithTwoBudgetsAsAConfigurationError(RealCluster cluster, RealNamespace ns) {
    // Given a pod selected by two PodDisruptionBudgets, which the eviction API rejects with 500
    String node = ns.createNode(spotNode("spot-c", "i-0feed000000000031")).getMetadata().getName();
    var labels = RealNamespace.labels("app", "batch");
    Pod pod = workloadOn(ns, node, "batch", 1).get(0);
    ns.createPdb("batch-min", "0", null, labels);
    ns.createPdb("batch-max", null, "1", labels);

    // When the node is drained
    DrainOutcome outcome = drainOnSpotWarning(service(cluster), "i-0feed000000000031");

    // Then the pod is reported as a configuration error at once (no retries until the deadline),
    // and it is still running
    String key = ns.name() + "/" + pod.getMetadata().getName();
    assertThat(outcome.status()).isEqualTo(Status.PARTIAL);
    assertThat(outcome.podsNotEvicted())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.pod()).isEqualTo(key);
              assertThat(r.status()).isEqualTo(PodReport.Status.CONFIG_ERROR);
              assertThat(r.attempts()).isEqualTo(1);
              assertThat(r.reason()).contains("more than one PodDisruptionBudget");
            });
    assertThat(ns.podsOn(node))
        .extracting(p -> p.getMetadata().getUid())
        .containsExactly(pod.getMetadata().getUid());
    assertThat(cluster.evictions(ns.name()))
        .extracting(RealCluster.Eviction::code)
        .containsExactly(500);
  }

  @Test
  void shouldDrainTheSpotWarningSampleThroughTheLambdaHandler(RealCluster cluster, RealNamespace ns)
      throws Exception {
    // Given the node of the instance named in events/spot-interruption-warning.json
    JsonNode sample =
        DrainHandlerEventsTest.read(
            DrainHandlerEventsTest.eventsDir().resolve("spot-interruption-warning.json"));
    String instance = sample.path("detail").path("instance-id").asText();
    String node = ns.createNode(spotNode("sample", instance)).getMetadata().getName();
    workloadOn(ns, node, "web", 2);
    ns.createNode(spotNode("spare", "i-0feed000000000041"));

    // When the Lambda runtime would invoke the handler with it (raw bytes in, JSON out)
    var handler = new DrainHandler(service(cluster), metrics, Clock.systemUTC());
    var output = new ByteArrayOutputStream();
    handler.handleRequest(
        new ByteArrayInputStream(DrainHandlerEventsTest.rebase(sample, Instant.now())),
        output,
        new LocalContext("interruption-drain", DrainHandlerEventsTest.LAMBDA_MILLIS));

    // Then it answers with a DRAINED outcome, and the pods are gone from the API server
    List<DrainOutcome> outcomes =
        DrainHandlerEventsTest.outcomes(Json.MAPPER.readTree(output.toByteArray()));
    assertThat(outcomes)
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.status()).as(o.message()).isEqualTo(Status.DRAINED);
              assertThat(o.node()).isEqualTo(node);
              assertThat(o.podsEvicted()).hasSize(2);
            });
    assertThat(ns.podsOn(node)).isEmpty();
    assertThat(cluster.evictions(ns.name()))
        .extracting(RealCluster.Eviction::code)
        .containsExactly(201, 201);
  }

  @Test
  void shouldForceDeleteWhatABudgetKeepsOnlyWithTheOptInRole(
      RealCluster cluster, RealNamespace ns) {
    // Given one pod whose PDB never allows its eviction
    String node = ns.createNode(spotNode("stuck", "i-0feed000000000051")).getMetadata().getName();
    Pod pod = workloadOn(ns, node, "stuck", 1).get(0);
    ns.createPdb("stuck", "1", null, RealNamespace.labels("app", "stuck"));
    ns.awaitPdb("stuck", "counts the pod healthy", p -> p.getStatus().getCurrentHealthy() == 1);
    // and the default drain identity, which may not delete pods (RBAC says so before any try)
    assertThat(canDeletePods(cluster.clientAs(FunctionIdentity.INTERRUPTION_DRAIN), ns.name()))
        .isFalse();
    assertThat(
            canDeletePods(
                cluster.clientAs(FunctionIdentity.INTERRUPTION_DRAIN_FORCE_DELETE), ns.name()))
        .isTrue();

    // When a drain deployed with DrainForceDelete=true (its access entry then adds the opt-in
    // group) handles a warning sent 100 s ago: 10 s left before the deadline margin
    var settings =
        new DrainSettings(
            CLUSTER,
            DrainSettings.defaultActions(),
            Duration.ofSeconds(10),
            true,
            true,
            TAINT_KEY,
            true,
            128);
    var service =
        DrainWiring.service(
            cluster.clientAs(FunctionIdentity.INTERRUPTION_DRAIN_FORCE_DELETE),
            DrainWiring.Parts.of(settings).reportingTo(metrics, publisher, notifier));
    DrainOutcome outcome =
        drainOnSpotWarning(service, "i-0feed000000000051", Instant.now().minusSeconds(100));

    // Then the budget refused every eviction, and at the deadline the pod was force-deleted (the
    // outcome counts it among the pods that left the node)
    String key = ns.name() + "/" + pod.getMetadata().getName();
    assertThat(outcome.podsEvicted()).containsExactly(key);
    assertThat(outcome.podsNotEvicted()).isEmpty();
    assertThat(cluster.evictions(ns.name()))
        .isNotEmpty()
        .allSatisfy(e -> assertThat(e.code()).isEqualTo(429));
    // by a DELETE of the opt-in identity, as the API server recorded it
    assertThat(cluster.auditEvents())
        .filteredOn(e -> e.verb().equals("delete") && e.resource().equals("pods"))
        .filteredOn(e -> e.namespace().equals(ns.name()))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.name()).isEqualTo(pod.getMetadata().getName());
              assertThat(e.code()).isEqualTo(200);
              assertThat(e.groups()).contains("gpufleet-drain-force");
            });
    RealCluster.await(
        "the force-deleted pod gone",
        RealNamespace.WAIT,
        () ->
            ns.podsOn(node).stream()
                .noneMatch(p -> p.getMetadata().getUid().equals(pod.getMetadata().getUid())));
  }

  /** What the API server's authorizer answers for "delete pods in ns" (SelfSubjectAccessReview). */
  static boolean canDeletePods(io.fabric8.kubernetes.client.KubernetesClient client, String ns) {
    var review =
        new io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder()
            .withNewSpec()
            .withNewResourceAttributes()
            .withVerb("delete")
            .withResource("pods")
            .withNamespace(ns)
            .endResourceAttributes()
            .endSpec()
            .build();
    return client
        .authorization()
        .v1()
        .selfSubjectAccessReview()
        .create(review)
        .getStatus()
        .getAllowed();
  }

  /** When the pod's Ready condition last turned true (the API keeps whole seconds). */
  private static Instant readySince(Pod pod) {
    return pod.getStatus().getConditions().stream()
        .filter(c -> "Ready".equals(c.getType()))
        .map(c -> Instant.parse(c.getLastTransitionTime()))
        .findFirst()
        .orElseThrow();
  }
}
