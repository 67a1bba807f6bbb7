package io.gpufleet.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.gpufleet.schedule.k8s.ScheduleKinds;
import io.gpufleet.sim.real.RealNamespace;
import io.gpufleet.testkit.real.RealApiServerTest;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Real API server tier: the ValidatingAdmissionPolicies of
 * deploy/admission/disruption-schedule.yaml confine the schedule's writes to the fields it owns.
 * Each write outside them is sent by the schedule's identity (refused, object unchanged), then by
 * an admin (allowed: the refusal is the policy's, not the API server's own validation). The
 * schedule's own writes of the owned fields are what {@link RealApiScheduleTest} makes.
 */
@RealApiServerTest
class RealApiScheduleFieldsPolicyTest {

  /** Sends {@code write} as the schedule, expects the policy's refusal, then sends it as admin. */
  static <T> T refusedThenAllowed(
      RealNamespace ns, String policy, String message, Function<KubernetesClient, T> write) {
    var refused =
        catchThrowableOfType(
            KubernetesClientException.class, () -> write.apply(ns.cluster().client()));
    assertThat(refused).as("the schedule's write").isNotNull();
    assertThat(refused.getCode()).as(refused.getMessage()).isEqualTo(422);
    assertThat(refused.getMessage()).contains(policy).contains(message);
    return write.apply(ns.client());
  }

  static GenericKubernetesResource mergePatch(
      KubernetesClient client, ResourceDefinitionContext ctx, String ns, String name, String p) {
    var stub = new GenericKubernetesResource();
    stub.setApiVersion(ctx.getGroup() + "/" + ctx.getVersion());
    stub.setKind(ctx.getKind());
    stub.setMetadata(
        new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
            .withName(name)
            .withNamespace(ns)
            .build());
    var resources = client.genericKubernetesResources(ctx);
    return (ns == null ? resources.resource(stub) : resources.inNamespace(ns).resource(stub))
        .patch(PatchContext.of(PatchType.JSON_MERGE), p);
  }

  @AfterEach
  void deleteNodePools(RealNamespace ns) {
    ns.client().genericKubernetesResources(ScheduleKinds.NODEPOOLS).list().getItems().stream()
        .filter(p -> p.getMetadata().getName().startsWith(ns.name() + "-"))
        .forEach(
            p ->
                ns.client()
                    .genericKubernetesResources(ScheduleKinds.NODEPOOLS)
                    .withName(p.getMetadata().getName())
                    .delete());
  }

  @Test
  void shouldRefuseTheScheduleANodePoolChangeOutsideItsDisruptionFields(RealNamespace ns) {
    // Given a NodePool
    String pool = ns.name() + "-gpu";
    RealApiScheduleTest.createNodePool(ns, pool, ns.name());
    String policy = "gpufleet-disruption-schedule-nodepool-fields";

    // When the schedule changes its weight, its template's labels, or its own labels
    var weight =
        refusedThenAllowed(
            ns,
            policy,
            "may change only spec.disruption.budgets",
            c -> mergePatch(c, ScheduleKinds.NODEPOOLS, null, pool, "{\"spec\":{\"weight\":90}}"));
    var template =
        refusedThenAllowed(
            ns,
            policy,
            "may change only spec.disruption.budgets",
            c ->
                mergePatch(
                    c,
                    ScheduleKinds.NODEPOOLS,
                    null,
                    pool,
                    "{\"spec\":{\"template\":{\"metadata\":{\"labels\":{\"workload\":\"any\"}}}}}"));
    var labels =
        refusedThenAllowed(
            ns,
            policy,
            "may not change the labels of a NodePool",
            c ->
                mergePatch(
                    c,
                    ScheduleKinds.NODEPOOLS,
                    null,
                    pool,
                    "{\"metadata\":{\"labels\":{\"team\":\"other\"}}}"));

    // Then only the admin's writes landed
    assertThat(RealApiScheduleTest.spec(weight).path("weight").asInt()).isEqualTo(90);
    assertThat(RealApiScheduleTest.spec(template).at("/template/metadata/labels/workload").asText())
        .isEqualTo("any");
    assertThat(labels.getMetadata().getLabels()).containsEntry("team", "other");
  }

  @Test
  void shouldLetTheScheduleWriteTheNodePoolsDisruptionBudgetsAndItsAnnotations(RealNamespace ns) {
    // Given a NodePool
    String pool = ns.name() + "-gpu";
    RealApiScheduleTest.createNodePool(ns, pool, ns.name());

    // When the schedule merge-patches exactly the fields it owns
    var after =
        mergePatch(
            ns.cluster().client(),
            ScheduleKinds.NODEPOOLS,
            null,
            pool,
            """
            {"metadata":{"annotations":{"gpufleet.io/original":"{}","gpufleet.io/applied":"{}"}},
             "spec":{"disruption":{"budgets":[{"nodes":"0"}],"consolidateAfter":"1h"}}}
            """);

    // Then the policy lets it through
    assertThat(RealApiScheduleTest.spec(after).at("/disruption/budgets/0/nodes").asText())
        .isEqualTo("0");
    assertThat(after.getMetadata().getAnnotations()).containsKey("gpufleet.io/applied");
  }

  @Test
  void shouldRefuseTheScheduleAnHpaChangeOtherThanMinReplicas(RealNamespace ns) {
    // Given an HPA, in a namespace where the schedule's write role is bound
    RealApiScheduleTest.bindWrites(ns);
    ns.client()
        .autoscaling()
        .v2()
        .horizontalPodAutoscalers()
        .inNamespace(ns.name())
        .resource(
            new HorizontalPodAutoscalerBuilder()
                .withNewMetadata()
                .withName("api")
                .withNamespace(ns.name())
                .endMetadata()
                .withNewSpec()
                .withMinReplicas(2)
                .withMaxReplicas(10)
                .withNewScaleTargetRef()
                .withApiVersion("apps/v1")
                .withKind("Deployment")
                .withName("api")
                .endScaleTargetRef()
                .endSpec()
                .build())
        .create();

    // When the schedule raises its maximum
    var after =
        refusedThenAllowed(
            ns,
            "gpufleet-disruption-schedule-hpa-fields",
            "may change only spec.minReplicas",
            c ->
                mergePatch(
                    c, ScheduleKinds.HPAS, ns.name(), "api", "{\"spec\":{\"maxReplicas\":50}}"));

    // Then only the admin's write landed
    assertThat(RealApiScheduleTest.spec(after).path("maxReplicas").asInt()).isEqualTo(50);
  }

  @Test
  void shouldRefuseTheScheduleAScaledObjectSpecChange(RealNamespace ns) {
    // Given a ScaledObject, in a namespace where the schedule's write role is bound
    RealApiScheduleTest.bindWrites(ns);
    RealApiScheduleTest.createScaledObject(ns, "worker", null);

    // When the schedule changes its spec, or an annotation it does not own
    var spec =
        refusedThenAllowed(
            ns,
            "gpufleet-disruption-schedule-scaledobject-fields",
            "may not change spec of a ScaledObject",
            c ->
                mergePatch(
                    c,
                    ScheduleKinds.SCALEDOBJECTS,
                    ns.name(),
                    "worker",
                    "{\"spec\":{\"maxReplicaCount\":50}}"));
    var annotation =
        refusedThenAllowed(
            ns,
            "gpufleet-disruption-schedule-scaledobject-fields",
            "may change only the annotations",
            c ->
                mergePatch(
                    c,
                    ScheduleKinds.SCALEDOBJECTS,
                    ns.name(),
                    "worker",
                    "{\"metadata\":{\"annotations\":{\"autoscaling.keda.sh/paused\":\"true\"}}}"));

    // Then only the admin's writes landed
    assertThat(RealApiScheduleTest.spec(spec).path("maxReplicaCount").asInt()).isEqualTo(50);
    assertThat(annotation.getMetadata().getAnnotations())
        .containsEntry("autoscaling.keda.sh/paused", "true");
  }

  @Test
  void shouldRefuseTheScheduleAnyConfigMapButItsOwn(RealNamespace ns) {
    // Given a namespace where the schedule's write role (configmaps create) is bound
    RealApiScheduleTest.bindWrites(ns);
    var other =
        new ConfigMapBuilder()
            .withNewMetadata()
            .withName("app-settings")
            .withNamespace(ns.name())
            .endMetadata()
            .addToData("mode", "debug")
            .build();

    // When the schedule creates a ConfigMap of another name
    var created =
        refusedThenAllowed(
            ns,
            "gpufleet-disruption-schedule-configmap-name",
            "may write only the ConfigMap gpufleet-schedule",
            c -> c.configMaps().inNamespace(ns.name()).resource(other).create());

    // Then only the admin's create landed
    assertThat(created.getData()).containsEntry("mode", "debug");
  }
}
