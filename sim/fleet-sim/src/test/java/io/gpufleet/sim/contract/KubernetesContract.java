package io.gpufleet.sim.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PreconditionsBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v1.Scale;
import io.fabric8.kubernetes.api.model.autoscaling.v1.ScaleBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.Eviction;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.gpufleet.core.json.Json;
import io.gpufleet.sim.SimObjects;
import java.net.URL;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The Kubernetes behaviour the functions rely on, written once and run against both the simulator
 * ({@link SimClusterContractTest}) and the real API server ({@link RealApiContractTest}): the
 * eviction subresource under PodDisruptionBudgets (the drain), node patches guarded by
 * resourceVersion (the drain's cordon and taint), server-side apply ownership (the disruption
 * schedule's NodePools and ScaledObjects) and the scale subresource (the schedule's Deployments).
 * Answers are compared field by field as the functions read them: HTTP code, Status reason, message
 * and details, the objects' fields and resourceVersions.
 *
 * <p>A case that passes on the real server and fails on the simulator is a simulator bug: fix
 * {@code fleet-sim}, not the case.
 */
abstract class KubernetesContract {
  static final ResourceDefinitionContext NODES = ctx("", "v1", "Node", "nodes", false);
  static final ResourceDefinitionContext NODEPOOLS =
      ctx("karpenter.sh", "v1", "NodePool", "nodepools", false);
  static final ResourceDefinitionContext SCALEDOBJECTS =
      ctx("keda.sh", "v1alpha1", "ScaledObject", "scaledobjects", true);
  static final String PAUSED = "autoscaling.keda.sh/paused-replicas";

  /** The server under test, fresh for each case. */
  abstract ClusterUnderTest cluster();

  // ------------------------------------------------------------------ eviction and budgets

  @Test
  void evictionOfAPodNoBudgetSelectsDeletesItWithTheGracePeriodAsked() {
    var c = cluster();
    String node = c.node("a");
    Pod pod = c.readyPods("free", node, 1).get(0);
    Instant asked = Instant.now();

    // the drain's call: fabric8's evict, uid precondition, grace period
    boolean accepted = podResource(pod).evict(eviction(pod, 5, pod.getMetadata().getUid()));

    assertThat(accepted).isTrue();
    Pod after = podResource(pod).get();
    if (after != null) {
      // still terminating: marked with the grace period asked for, to end when it runs out
      assertThat(after.getMetadata().getDeletionGracePeriodSeconds()).isEqualTo(5L);
      // and told why: the eviction API's DisruptionTarget condition
      assertThat(after.getStatus().getConditions())
          .anySatisfy(
              cond -> {
                assertThat(cond.getType()).isEqualTo("DisruptionTarget");
                assertThat(cond.getStatus()).isEqualTo("True");
                assertThat(cond.getReason()).isEqualTo("EvictionByEvictionAPI");
              });
      assertThat(Instant.parse(after.getMetadata().getDeletionTimestamp()))
          .isAfterOrEqualTo(asked.plusSeconds(4));
    }
    c.awaitGone(pod.getMetadata().getName());
  }

  @Test
  void evictionAnswers201WithASuccessStatus() {
    var c = cluster();
    Pod pod = c.readyPods("free", c.node("a"), 1).get(0);

    Answer a = evictRaw(pod.getMetadata().getName(), eviction(pod, 0, null));

    assertThat(a.code()).as(a.toString()).isEqualTo(201);
    assertThat(a.body().path("kind").asText()).isEqualTo("Status");
    assertThat(a.body().path("status").asText()).isEqualTo("Success");
    c.awaitGone(pod.getMetadata().getName());
  }

  @Test
  void evictionOfAPodThatDoesNotExistIs404() {
    var c = cluster();
    c.node("a");

    Answer a = evictRaw("nope", evictionOf("nope", 30, null));

    assertThat(a.code()).as(a.toString()).isEqualTo(404);
    assertThat(a.reason()).isEqualTo("NotFound");
    assertThat(a.message()).isEqualTo("pods \"nope\" not found");
    assertThat(a.body().path("details").path("name").asText()).isEqualTo("nope");
    assertThat(a.body().path("details").path("kind").asText()).isEqualTo("pods");
  }

  @Test
  void evictionWithAnotherPodsUidIs409AndLeavesThePod() {
    var c = cluster();
    Pod pod = c.readyPods("free", c.node("a"), 1).get(0);
    String other = UUID.randomUUID().toString();

    Answer a = evictRaw(pod.getMetadata().getName(), eviction(pod, 30, other));

    // the drain reads 409 + "UID" as "a new pod took the name": ours is gone
    assertThat(a.code()).as(a.toString()).isEqualTo(409);
    assertThat(a.reason()).isEqualTo("Conflict");
    assertThat(a.message())
        .isEqualTo(
            "Operation cannot be fulfilled on Pod \""
                + pod.getMetadata().getName()
                + "\": the UID in the precondition ("
                + other
                + ") does not match the UID in record ("
                + pod.getMetadata().getUid()
                + "). The object might have been deleted and then recreated");
    assertThat(podResource(pod).get().getMetadata().getDeletionTimestamp()).isNull();
  }

  @Test
  void evictionABudgetAllowsNoneOfIs429WithTheBudgetsNumbersInTheCause() {
    var c = cluster();
    Pod pod = c.readyPods("solo", c.node("a"), 1).get(0);
    createPdb("solo", "1", null, "solo");
    PodDisruptionBudget pdb =
        c.awaitPdb("solo", "counts the pod healthy", p -> p.getStatus().getCurrentHealthy() == 1);
    assertStatus(pdb, 1, 1, 1, 0);

    Answer a = evictRaw(pod.getMetadata().getName(), eviction(pod, 30, null));

    assertThat(a.code()).as(a.toString()).isEqualTo(429);
    assertThat(a.reason()).isEqualTo("TooManyRequests");
    assertThat(a.message())
        .isEqualTo("Cannot evict pod as it would violate the pod's disruption budget.");
    JsonNode cause = a.body().path("details").path("causes").path(0);
    assertThat(cause.path("reason").asText()).isEqualTo("DisruptionBudget");
    assertThat(cause.path("message").asText())
        .isEqualTo("The disruption budget solo needs 1 healthy pods and has 1 currently");
    // fabric8's evict (the drain's call) answers a 429 with false, not an exception
    assertThat(podResource(pod).evict(eviction(pod, 30, pod.getMetadata().getUid()))).isFalse();
    assertThat(podResource(pod).get().getMetadata().getDeletionTimestamp()).isNull();
  }

  @Test
  void evictionsUnderABudgetCountItDownUntilItRefuses() {
    var c = cluster();
    List<Pod> pods = c.readyPods("api", c.node("a"), 3);
    createPdb("api", "1", null, "api");
    PodDisruptionBudget pdb =
        c.awaitPdb("api", "counts 3 healthy", p -> p.getStatus().getCurrentHealthy() == 3);
    assertStatus(pdb, 3, 3, 1, 2);

    for (int i = 0; i < 2; i++) {
      Pod pod = pods.get(i);
      assertThat(podResource(pod).evict(eviction(pod, 30, pod.getMetadata().getUid())))
          .as("eviction of " + pod.getMetadata().getName())
          .isTrue();
      c.awaitGone(pod.getMetadata().getName());
      int left = 2 - i;
      pdb =
          c.awaitPdb(
              "api",
              "counts " + left + " pods, all healthy",
              p ->
                  p.getStatus().getCurrentHealthy() == left
                      && p.getStatus().getExpectedPods() == left);
      // integer minAvailable: the pods there are are the pods expected
      assertStatus(pdb, left, left, 1, left - 1);
    }

    Pod last = pods.get(2);
    Answer refused = evictRaw(last.getMetadata().getName(), eviction(last, 30, null));
    assertThat(refused.code()).as(refused.toString()).isEqualTo(429);
    assertThat(refused.body().at("/details/causes/0/message").asText())
        .isEqualTo("The disruption budget api needs 1 healthy pods and has 1 currently");
  }

  @Test
  void aPodTwoBudgetsSelectIs500AndStays() {
    var c = cluster();
    Pod pod = c.readyPods("api", c.node("a"), 1).get(0);
    createPdb("api-a", "0", null, "api");
    createPdb("api-b", null, "1", "api");
    c.awaitPdb("api-a", "observed", p -> true);
    c.awaitPdb("api-b", "observed", p -> true);

    Answer a = evictRaw(pod.getMetadata().getName(), eviction(pod, 30, null));

    assertThat(a.code()).as(a.toString()).isEqualTo(500);
    // a plain error inside the API server: no reason, no details, the bare message
    assertThat(a.reason()).as(a.toString()).isNull();
    assertThat(a.body().has("details")).as(a.toString()).isFalse();
    assertThat(a.message())
        .isEqualTo(
            "This pod has more than one PodDisruptionBudget, which the eviction subresource does"
                + " not support.");
    assertThat(podResource(pod).get().getMetadata().getDeletionTimestamp()).isNull();
  }

  @Test
  void maxUnavailableOverPodsNoControllerOwnsExpectsNoneAndAllowsNothing() {
    var c = cluster();
    Pod pod = c.readyPods("bare", c.node("a"), 2).get(0);
    createPdb("bare", null, "1", "bare");
    // the controller takes maxUnavailable against its controllers' scale; unmanaged pods have none
    PodDisruptionBudget pdb =
        c.awaitPdb("bare", "counts 2 healthy", p -> p.getStatus().getCurrentHealthy() == 2);
    assertStatus(pdb, 0, 2, 0, 0);

    Answer a = evictRaw(pod.getMetadata().getName(), eviction(pod, 30, null));

    assertThat(a.code()).as(a.toString()).isEqualTo(429);
    assertThat(a.body().at("/details/causes/0/message").asText())
        .isEqualTo("The disruption budget bare does not allow evicting pods currently");
  }

  // ------------------------------------------------------------------ node patches

  @Test
  void cordonAndTaintAsAMergePatchGuardedByResourceVersion() {
    var c = cluster();
    String node = c.node("a");
    GenericKubernetesResource read =
        c.client().genericKubernetesResources(NODES).withName(node).get();
    List<Object> before = taints(read);

    // the drain's patch: resourceVersion, marker annotation, unschedulable, taints = there + ours
    GenericKubernetesResource patched = null;
    for (int attempt = 0; patched == null; attempt++) {
      try {
        patched =
            c.client()
                .genericKubernetesResources(NODES)
                .withName(node)
                .patch(PatchContext.of(PatchType.JSON_MERGE), Json.write(cordon(read, before)));
      } catch (KubernetesClientException e) {
        // only acceptable when someone else (a kubelet's status) wrote the node in between
        assertThat(e.getCode()).isEqualTo(409);
        GenericKubernetesResource now =
            c.client().genericKubernetesResources(NODES).withName(node).get();
        assertThat(now.getMetadata().getResourceVersion())
            .isNotEqualTo(read.getMetadata().getResourceVersion());
        assertThat(attempt).as("409s on a node nobody else writes").isLessThan(3);
        read = now;
        before = taints(read);
      }
    }

    Map<String, Object> spec = map(patched.getAdditionalProperties().get("spec"));
    assertThat(spec.get("unschedulable")).isEqualTo(true);
    var expected = new ArrayList<>(before);
    expected.add(
        Map.of("key", "gpufleet.io/interruption", "value", "spot", "effect", "NoSchedule"));
    assertThat(spec.get("taints")).isEqualTo(expected);
    assertThat(patched.getMetadata().getAnnotations()).containsEntry("gpufleet.io/drain", "test");
    assertThat(patched.getMetadata().getResourceVersion())
        .isNotEqualTo(read.getMetadata().getResourceVersion());

    // the same patch with the resourceVersion it was read at: the node changed since, 409
    var stale = cordon(read, before);
    var e =
        catchK8s(
            () ->
                c.client()
                    .genericKubernetesResources(NODES)
                    .withName(node)
                    .patch(PatchContext.of(PatchType.JSON_MERGE), Json.write(stale)));
    assertThat(e.getCode()).isEqualTo(409);
    assertThat(e.getStatus().getReason()).isEqualTo("Conflict");
    assertThat(e.getStatus().getMessage())
        .isEqualTo(
            "Operation cannot be fulfilled on nodes \""
                + node
                + "\": the object has been modified; please apply your changes to the latest"
                + " version and try again");
  }

  // ------------------------------------------------------------------ server-side apply

  @Test
  void applyOfAFieldAnotherManagerOwnsIs409NamingItUnlessForced() {
    var c = cluster();
    String pool = c.unique("gpu");
    createNodePool(pool);
    // the creator owns consolidateAfter (Karpenter's CRD requires it): team-a takes it by force
    assertThat(apply(pool, "team-a", true, consolidateAfter(pool, "5m"))).isNotNull();

    // another applier, another value, no force: refused, naming the owner and the field
    var e = catchK8s(() -> apply(pool, "gpufleet", false, consolidateAfter(pool, "1m")));
    assertThat(e.getCode()).isEqualTo(409);
    assertThat(e.getStatus().getReason()).isEqualTo("Conflict");
    assertThat(e.getStatus().getMessage())
        .isEqualTo(
            "Apply failed with 1 conflict: conflict with \"team-a\":"
                + " .spec.disruption.consolidateAfter");
    assertThat(e.getStatus().getDetails().getCauses())
        .singleElement()
        .satisfies(
            cause -> {
              assertThat(cause.getReason()).isEqualTo("FieldManagerConflict");
              assertThat(cause.getMessage()).isEqualTo("conflict with \"team-a\"");
              assertThat(cause.getField()).isEqualTo(".spec.disruption.consolidateAfter");
            });
    assertThat(disruption(nodePool(pool)).path("consolidateAfter").asText()).isEqualTo("5m");

    // the same value is no conflict: both own it
    apply(pool, "team-b", false, consolidateAfter(pool, "5m"));
    assertThat(owns(nodePool(pool), "team-a", "spec", "disruption", "consolidateAfter")).isTrue();
    assertThat(owns(nodePool(pool), "team-b", "spec", "disruption", "consolidateAfter")).isTrue();

    // force (as the schedule applies) takes the field from both
    GenericKubernetesResource forced = apply(pool, "gpufleet", true, consolidateAfter(pool, "1m"));
    assertThat(disruption(forced).path("consolidateAfter").asText()).isEqualTo("1m");
    assertThat(owns(forced, "gpufleet", "spec", "disruption", "consolidateAfter")).isTrue();
    assertThat(owns(forced, "team-a", "spec", "disruption", "consolidateAfter")).isFalse();
    assertThat(owns(forced, "team-b", "spec", "disruption", "consolidateAfter")).isFalse();
    assertThat(managedFields(forced))
        .anySatisfy(
            m -> {
              assertThat(m.path("manager").asText()).isEqualTo("gpufleet");
              assertThat(m.path("operation").asText()).isEqualTo("Apply");
            });
  }

  @Test
  void applyOfAFieldTheCreatorSetIs409NamingTheCreatorsUpdate() {
    var c = cluster();
    String pool = c.unique("gpu");
    ObjectNode spec = SimObjects.nodePool(pool, Map.of("team", "ml"), null, "30s");
    GenericKubernetesResource created =
        c.client().genericKubernetesResources(NODEPOOLS).resource(generic(spec)).create();
    // the creator's manager: its fieldManager, else its User-Agent's product (an Update entry)
    JsonNode creator = managedFields(created).get(0);
    assertThat(creator.path("operation").asText()).isEqualTo("Update");
    assertThat(
            owns(
                created,
                creator.path("manager").asText(),
                "spec",
                "disruption",
                "consolidateAfter"))
        .isTrue();

    var e = catchK8s(() -> apply(pool, "gpufleet", false, consolidateAfter(pool, "1m")));

    assertThat(e.getCode()).isEqualTo(409);
    assertThat(e.getStatus().getDetails().getCauses())
        .singleElement()
        .satisfies(
            cause -> {
              assertThat(cause.getReason()).isEqualTo("FieldManagerConflict");
              assertThat(cause.getField()).isEqualTo(".spec.disruption.consolidateAfter");
              assertThat(cause.getMessage())
                  .isEqualTo(
                      "conflict with \""
                          + creator.path("manager").asText()
                          + "\" using karpenter.sh/v1");
            });
    // the schedule applies with force for exactly this reason
    assertThat(
            disruption(apply(pool, "gpufleet", true, consolidateAfter(pool, "1m")))
                .path("consolidateAfter")
                .asText())
        .isEqualTo("1m");
  }

  @Test
  void applyingWhatIsThereAlreadyWritesNothing() {
    var c = cluster();
    String pool = c.unique("gpu");
    createNodePool(pool);
    ObjectNode body = consolidateAfter(pool, "10m");
    ((ObjectNode) body.at("/spec/disruption"))
        .putArray("budgets")
        .addObject()
        .put("nodes", "0")
        .putArray("reasons")
        .add("Underutilized");
    GenericKubernetesResource first = apply(pool, "gpufleet", true, body);
    String rv = first.getMetadata().getResourceVersion();
    Long generation = first.getMetadata().getGeneration();

    // the schedule's second run: the same document, with the object's uid and resourceVersion
    ObjectNode again = body.deepCopy();
    ((ObjectNode) again.get("metadata"))
        .put("uid", first.getMetadata().getUid())
        .put("resourceVersion", rv);
    GenericKubernetesResource second = apply(pool, "gpufleet", true, again);

    assertThat(second.getMetadata().getResourceVersion()).isEqualTo(rv);
    assertThat(second.getMetadata().getGeneration()).isEqualTo(generation);
    assertThat(nodePool(pool).getMetadata().getResourceVersion()).isEqualTo(rv);

    // and a precondition that no longer holds is a 409, not an overwrite
    apply(pool, "gpufleet", true, consolidateAfter(pool, "20m"));
    var e = catchK8s(() -> apply(pool, "gpufleet", true, again));
    assertThat(e.getCode()).isEqualTo(409);
    assertThat(e.getStatus().getMessage())
        .isEqualTo(
            "Operation cannot be fulfilled on nodepools.karpenter.sh \""
                + pool
                + "\": the object has been modified; please apply your changes to the latest"
                + " version and try again");
    assertThat(disruption(nodePool(pool)).path("consolidateAfter").asText()).isEqualTo("20m");
  }

  @Test
  void anAppliedFieldLeftOutGoesUnlessSomebodyElseOwnsItNow() {
    var c = cluster();
    c.client()
        .genericKubernetesResources(SCALEDOBJECTS)
        .inNamespace(c.namespace())
        .resource(generic(SimObjects.scaledObject(c.namespace(), "chat", "chat", null, null)))
        .create();

    // the schedule pauses the ScaledObject, then restores it by leaving the annotation out
    applyPaused("0");
    assertThat(annotations(scaledObject())).containsEntry(PAUSED, "0");
    applyPaused(null);
    assertThat(annotations(scaledObject())).doesNotContainKey(PAUSED);

    // paused again, and then somebody else sets the annotation: theirs now, it stays
    applyPaused("0");
    c.client()
        .genericKubernetesResources(SCALEDOBJECTS)
        .inNamespace(c.namespace())
        .withName("chat")
        .patch(
            new PatchContext.Builder()
                .withPatchType(PatchType.JSON_MERGE)
                .withFieldManager("kubectl-annotate")
                .build(),
            "{\"metadata\":{\"annotations\":{\"" + PAUSED + "\":\"2\"}}}");
    GenericKubernetesResource left = applyPaused(null);
    assertThat(annotations(left)).containsEntry(PAUSED, "2");
    assertThat(owns(left, "kubectl-annotate", "metadata", "annotations", PAUSED)).isTrue();
    assertThat(owns(left, "gpufleet", "metadata", "annotations", PAUSED)).isFalse();
  }

  // ------------------------------------------------------------------ scale subresource

  @Test
  void scaleSubresourceChangesReplicasGuardedByUidAndResourceVersion() {
    var c = cluster();
    ObjectNode spec = SimObjects.deployment(c.namespace(), "chat", 0, Map.of("app", "chat"), null);
    ((ObjectNode) spec.at("/spec/template/spec"))
        .set("nodeSelector", Json.MAPPER.valueToTree(c.nodeSelector()));
    var created =
        c.client()
            .apps()
            .deployments()
            .inNamespace(c.namespace())
            .resource(
                c.client()
                    .getKubernetesSerialization()
                    .unmarshal(
                        spec.toString(), io.fabric8.kubernetes.api.model.apps.Deployment.class))
            .create();
    c.awaitObserved("chat");
    var read = deployments().withName("chat").get();
    String uid = read.getMetadata().getUid();
    String rv = read.getMetadata().getResourceVersion();

    // another object's uid: a failed precondition
    var e = catchK8s(() -> deployments().withName("chat").scale(scale(2, "other-uid", rv)));
    assertThat(e.getCode()).isEqualTo(409);
    assertThat(e.getStatus().getReason()).isEqualTo("Conflict");
    assertThat(e.getStatus().getMessage())
        .isEqualTo(
            "Operation cannot be fulfilled on deployments.apps \"chat\": StorageError: invalid"
                + " object, Code: 4, Key: /registry/deployments/"
                + c.namespace()
                + "/chat, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in"
                + " precondition: other-uid, UID in object meta: "
                + uid);

    // the schedule's scale: PUT .../scale with uid and resourceVersion
    Scale answered = deployments().withName("chat").scale(scale(2, uid, rv));
    assertThat(answered.getSpec().getReplicas()).isEqualTo(2);
    var after = deployments().withName("chat").get();
    assertThat(after.getSpec().getReplicas()).isEqualTo(2);
    assertThat(after.getMetadata().getGeneration())
        .isEqualTo(created.getMetadata().getGeneration() + 1);

    // the same resourceVersion again: the object changed since, 409
    var stale = catchK8s(() -> deployments().withName("chat").scale(scale(0, uid, rv)));
    assertThat(stale.getCode()).isEqualTo(409);
    assertThat(stale.getStatus().getMessage())
        .isEqualTo(
            "Operation cannot be fulfilled on deployments.apps \"chat\": the object has been"
                + " modified; please apply your changes to the latest version and try again");
    assertThat(deployments().withName("chat").get().getSpec().getReplicas()).isEqualTo(2);
  }

  // ------------------------------------------------------------------ helpers

  /** An answer as it came over the wire: HTTP code and the JSON body. */
  record Answer(int code, JsonNode body) {
    String reason() {
      return body.path("reason").asText(null);
    }

    String message() {
      return body.path("message").asText(null);
    }
  }

  /** POSTs an Eviction and returns the raw answer (fabric8's evict hides a 429's body). */
  Answer evictRaw(String pod, Eviction eviction) {
    KubernetesClient client = cluster().client();
    try {
      var http = client.getHttpClient();
      var request =
          http.newHttpRequestBuilder()
              .url(
                  new URL(
                      new URL(client.getMasterUrl(), "/"),
                      "api/v1/namespaces/" + cluster().namespace() + "/pods/" + pod + "/eviction"))
              .post("application/json", client.getKubernetesSerialization().asJson(eviction))
              .build();
      var response = http.sendAsync(request, String.class).get(30, TimeUnit.SECONDS);
      return new Answer(response.code(), Json.MAPPER.readTree(response.body()));
    } catch (Exception e) {
      throw new IllegalStateException("eviction request failed", e);
    }
  }

  Eviction eviction(Pod pod, long grace, String uid) {
    return evictionOf(pod.getMetadata().getName(), grace, uid);
  }

  Eviction evictionOf(String pod, long grace, String uid) {
    var options = new DeleteOptionsBuilder().withGracePeriodSeconds(grace);
    if (uid != null) {
      options.withPreconditions(new PreconditionsBuilder().withUid(uid).build());
    }
    return new EvictionBuilder()
        .withNewMetadata()
        .withName(pod)
        .withNamespace(cluster().namespace())
        .endMetadata()
        .withDeleteOptions(options.build())
        .build();
  }

  io.fabric8.kubernetes.client.dsl.PodResource podResource(Pod pod) {
    return cluster()
        .client()
        .pods()
        .inNamespace(cluster().namespace())
        .withName(pod.getMetadata().getName());
  }

  void createPdb(String name, String minAvailable, String maxUnavailable, String app) {
    var pdb =
        new PodDisruptionBudgetBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(cluster().namespace())
            .endMetadata()
            .withNewSpec()
            .withNewSelector()
            .withMatchLabels(Map.of("app", app))
            .endSelector()
            .endSpec()
            .build();
    if (minAvailable != null) {
      pdb.getSpec().setMinAvailable(intOrString(minAvailable));
    }
    if (maxUnavailable != null) {
      pdb.getSpec().setMaxUnavailable(intOrString(maxUnavailable));
    }
    cluster()
        .client()
        .policy()
        .v1()
        .podDisruptionBudget()
        .inNamespace(cluster().namespace())
        .resource(pdb)
        .create();
  }

  static ResourceDefinitionContext ctx(
      String group, String version, String kind, String plural, boolean namespaced) {
    return new ResourceDefinitionContext.Builder()
        .withGroup(group)
        .withVersion(version)
        .withKind(kind)
        .withPlural(plural)
        .withNamespaced(namespaced)
        .build();
  }

  static IntOrString intOrString(String v) {
    return v.endsWith("%") ? new IntOrString(v) : new IntOrString(Integer.parseInt(v));
  }

  static void assertStatus(
      PodDisruptionBudget pdb, int expected, int healthy, int desired, int allowed) {
    var s = pdb.getStatus();
    assertThat(
            List.of(
                s.getExpectedPods(),
                s.getCurrentHealthy(),
                s.getDesiredHealthy(),
                s.getDisruptionsAllowed()))
        .as("expectedPods, currentHealthy, desiredHealthy, disruptionsAllowed of " + s)
        .containsExactly(expected, healthy, desired, allowed);
    assertThat(s.getObservedGeneration()).isEqualTo(pdb.getMetadata().getGeneration());
  }

  static KubernetesClientException catchK8s(Runnable call) {
    var thrown = new KubernetesClientException[1];
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(KubernetesClientException.class, e -> thrown[0] = e);
    return thrown[0];
  }

  static List<Object> taints(GenericKubernetesResource node) {
    Map<String, Object> spec = map(node.getAdditionalProperties().get("spec"));
    return spec != null && spec.get("taints") instanceof List<?> l
        ? new ArrayList<>(l)
        : new ArrayList<>();
  }

  static Map<String, Object> cordon(GenericKubernetesResource read, List<Object> taints) {
    var all = new ArrayList<>(taints);
    var ours = new LinkedHashMap<String, Object>();
    ours.put("key", "gpufleet.io/interruption");
    ours.put("value", "spot");
    ours.put("effect", "NoSchedule");
    all.add(ours);
    var metadata = new LinkedHashMap<String, Object>();
    metadata.put("resourceVersion", read.getMetadata().getResourceVersion());
    metadata.put("annotations", Map.of("gpufleet.io/drain", "test"));
    var patch = new LinkedHashMap<String, Object>();
    patch.put("metadata", metadata);
    patch.put("spec", Map.of("unschedulable", true, "taints", all));
    return patch;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object o) {
    return o instanceof Map<?, ?> m ? (Map<String, Object>) m : null;
  }

  GenericKubernetesResource generic(ObjectNode o) {
    return cluster()
        .client()
        .getKubernetesSerialization()
        .unmarshal(o.toString(), GenericKubernetesResource.class);
  }

  void createNodePool(String name) {
    ObjectNode pool = SimObjects.nodePool(name, Map.of("team", "ml"), null, "30s");
    cluster().client().genericKubernetesResources(NODEPOOLS).resource(generic(pool)).create();
  }

  GenericKubernetesResource nodePool(String name) {
    return cluster().client().genericKubernetesResources(NODEPOOLS).withName(name).get();
  }

  static ObjectNode consolidateAfter(String pool, String value) {
    ObjectNode body = Json.MAPPER.createObjectNode();
    body.put("apiVersion", "karpenter.sh/v1").put("kind", "NodePool");
    body.putObject("metadata").put("name", pool);
    body.putObject("spec").putObject("disruption").put("consolidateAfter", value);
    return body;
  }

  /** A server-side apply as the schedule sends it (named object, no read first). */
  GenericKubernetesResource apply(String pool, String manager, boolean force, ObjectNode body) {
    var item = new GenericKubernetesResource();
    item.setApiVersion("karpenter.sh/v1");
    item.setKind("NodePool");
    item.setMetadata(
        new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName(pool).build());
    return cluster()
        .client()
        .genericKubernetesResources(NODEPOOLS)
        .resource(item)
        .patch(applyContext(manager, force), Json.write(body));
  }

  static PatchContext applyContext(String manager, boolean force) {
    return new PatchContext.Builder()
        .withPatchType(PatchType.SERVER_SIDE_APPLY)
        .withFieldManager(manager)
        .withForce(force)
        .build();
  }

  GenericKubernetesResource applyPaused(String value) {
    ObjectNode body = Json.MAPPER.createObjectNode();
    body.put("apiVersion", "keda.sh/v1alpha1").put("kind", "ScaledObject");
    ObjectNode meta =
        body.putObject("metadata").put("name", "chat").put("namespace", cluster().namespace());
    if (value != null) {
      meta.putObject("annotations").put(PAUSED, value);
    }
    var item = new GenericKubernetesResource();
    item.setApiVersion("keda.sh/v1alpha1");
    item.setKind("ScaledObject");
    item.setMetadata(
        new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
            .withName("chat")
            .withNamespace(cluster().namespace())
            .build());
    return cluster()
        .client()
        .genericKubernetesResources(SCALEDOBJECTS)
        .inNamespace(cluster().namespace())
        .resource(item)
        .patch(applyContext("gpufleet", true), Json.write(body));
  }

  GenericKubernetesResource scaledObject() {
    return cluster()
        .client()
        .genericKubernetesResources(SCALEDOBJECTS)
        .inNamespace(cluster().namespace())
        .withName("chat")
        .get();
  }

  static Map<String, String> annotations(GenericKubernetesResource r) {
    return r.getMetadata().getAnnotations() == null ? Map.of() : r.getMetadata().getAnnotations();
  }

  static JsonNode disruption(GenericKubernetesResource r) {
    return Json.MAPPER.valueToTree(r.getAdditionalProperties().get("spec")).path("disruption");
  }

  static List<JsonNode> managedFields(GenericKubernetesResource r) {
    var out = new ArrayList<JsonNode>();
    if (r.getMetadata().getManagedFields() != null) {
      r.getMetadata().getManagedFields().forEach(m -> out.add(Json.MAPPER.valueToTree(m)));
    }
    return out;
  }

  /** Whether {@code manager}'s managedFields entry holds the field at {@code path}. */
  static boolean owns(GenericKubernetesResource r, String manager, String... path) {
    for (JsonNode m : managedFields(r)) {
      if (!m.path("manager").asText().equals(manager)) {
        continue;
      }
      JsonNode at = m.path("fieldsV1");
      for (String segment : path) {
        at = at.path("f:" + segment);
      }
      if (!at.isMissingNode()) {
        return true;
      }
    }
    return false;
  }

  io.fabric8.kubernetes.client.dsl.NonNamespaceOperation<
          io.fabric8.kubernetes.api.model.apps.Deployment,
          io.fabric8.kubernetes.api.model.apps.DeploymentList,
          io.fabric8.kubernetes.client.dsl.RollableScalableResource<
              io.fabric8.kubernetes.api.model.apps.Deployment>>
      deployments() {
    return cluster().client().apps().deployments().inNamespace(cluster().namespace());
  }

  Scale scale(int replicas, String uid, String rv) {
    return new ScaleBuilder()
        .withNewMetadata()
        .withName("chat")
        .withNamespace(cluster().namespace())
        .withUid(uid)
        .withResourceVersion(rv)
        .endMetadata()
        .withNewSpec()
        .withReplicas(replicas)
        .endSpec()
        .build();
  }
}
