package io.gpufleet.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.gpufleet.core.json.Json;
import io.gpufleet.schedule.k8s.ReplicaState;
import io.gpufleet.schedule.k8s.ScheduleClusterAdapter;
import io.gpufleet.schedule.k8s.ScheduleKinds;
import io.gpufleet.schedule.model.Change;
import io.gpufleet.schedule.model.Change.Action;
import io.gpufleet.schedule.model.ScheduleOutcome;
import io.gpufleet.schedule.model.ScheduleOutcome.Status;
import io.gpufleet.schedule.model.TargetState;
import io.gpufleet.schedule.wiring.ScheduleWiring;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.real.KwokNodes;
import io.gpufleet.sim.real.RealCluster;
import io.gpufleet.sim.real.RealNamespace;
import io.gpufleet.testkit.real.RealApiServerTest;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Real API server tier: the schedule, wired as the Lambda wires it ({@link ScheduleWiring#service})
 * over a real kube-apiserver, as the schedule's own identity under deploy/rbac and deploy/admission
 * (its namespaced write binding generated from the test's policy, as {@code gpufleet budgets rbac}
 * does). NodePools are custom resources of Karpenter's published NodePool CRD ({@link
 * io.gpufleet.sim.real.PublishedCrds}, its schema and CEL rules enforced by the server);
 * server-side apply, field ownership (managedFields), resourceVersion preconditions and the
 * Deployment → ReplicaSet → pod chain are the real ones. kwok runs the pods on a fake GPU node.
 */
@RealApiServerTest
class RealApiScheduleTest {
  /** Monday 2027-03-01, 22:00 in Berlin (CET), and Tuesday 10:00. */
  static final Instant NIGHT = Instant.parse("2027-03-01T21:00:00Z");

  static final Instant NEXT_DAY = Instant.parse("2027-03-02T09:00:00Z");

  final Recorders.RecordingMetrics metrics = new Recorders.RecordingMetrics();
  final Recorders.RecordingPublisher publisher = new Recorders.RecordingPublisher();
  final Recorders.RecordingNotifier notifier = new Recorders.RecordingNotifier();

  static String policy(String ns) {
    return """
        timeZone: Europe/Berlin
        defaultWindow: off-hours
        windows:
          business-hours: { days: mon-fri, hours: "08:00-19:00" }
        gracePeriod: 15m
        nodePools:
          - name: gpu
            selector: { labels: { gpufleet.io/test: %1$s } }
            windows:
              off-hours: { budgets: [{ nodes: "50%%", reasons: [Underutilized, Empty] }], consolidateAfter: 5m }
        workloads:
          - name: inference
            selector: { namespaces: [%1$s], labels: { schedule: office } }
            replicas: { off-hours: 0 }
          - name: api
            selector: { namespaces: [%1$s], labels: { schedule: autoscaled } }
            kinds: [HorizontalPodAutoscaler]
            replicas: { off-hours: 0 }
          - name: queues
            selector: { namespaces: [%1$s], labels: { schedule: keda } }
            kinds: [ScaledObject]
            replicas: { off-hours: 0 }
        """
        .formatted(ns);
  }

  /**
   * The service as {@link ScheduleWiring#service} builds it (fabric8 gateway, reporter, service),
   * with the gateway's reads scoped to this test's namespace and NodePools: tests share one
   * cluster, and an object gpufleet changed that no rule of the policy selects any more is restored
   * by design, so one test's policy would otherwise restore another test's objects.
   */
  ScheduleService service(RealNamespace ns) {
    bindWrites(ns);
    var scoped =
        new Scoped(new ScheduleClusterAdapter(ns.cluster().client(), Clock.systemUTC()), ns.name());
    return new ScheduleService(
        ScheduleSettings.defaults("real-api", "inline"),
        PolicySourcePort.inline(policy(ns.name()), "inline"),
        scoped,
        ScheduleReporting.reporter(metrics, publisher, notifier),
        Clock.fixed(NIGHT, ZoneOffset.UTC));
  }

  /**
   * Binds the schedule's write role where the test's policy scales workloads (its namespace), as
   * {@code gpufleet budgets rbac --policy ...} prints it: setup, done as admin.
   */
  static void bindWrites(RealNamespace ns) {
    var policy = io.gpufleet.schedule.policy.PolicyParser.parse(policy(ns.name()), "inline");
    var bindings = ScheduleRbac.bindings(policy, ScheduleRbac.DEFAULT_GROUP);
    assertThat(bindings)
        .singleElement()
        .satisfies(b -> assertThat(b.path("kind").asText()).isEqualTo("RoleBinding"));
    for (var b : bindings) {
      var item =
          ns.client()
              .getKubernetesSerialization()
              .unmarshal(Json.write(b), io.fabric8.kubernetes.api.model.rbac.RoleBinding.class);
      ns.client().resource(item).forceConflicts().serverSideApply();
    }
    var identity = ns.cluster().defaultIdentity();
    if (identity != null) {
      ns.cluster().awaitAllowed(identity, "create", "", "configmaps", ns.name());
    }
  }

  /**
   * The schedule's remembered state of a workload ({@code Kind.name}) in the namespace, or null.
   */
  static JsonNode state(RealNamespace ns, String key) {
    var cm =
        ns.client()
            .configMaps()
            .inNamespace(ns.name())
            .withName(ReplicaState.STATE_CONFIGMAP)
            .get();
    String text = cm == null || cm.getData() == null ? null : cm.getData().get(key);
    return text == null ? null : read(text);
  }

  /** Reads only this test's objects; writes and events go straight to the real gateway. */
  record Scoped(ScheduleClusterAdapter gateway, String ns) implements ScheduleClusterPort {
    @Override
    public List<TargetState> nodePools() {
      return gateway.nodePools().stream()
          .filter(p -> ns.equals(p.labels().get(SCOPE_LABEL)))
          .toList();
    }

    @Override
    public List<TargetState> workloads() {
      return gateway.workloads().stream().filter(w -> ns.equals(w.ref().namespace())).toList();
    }

    @Override
    public void apply(io.gpufleet.schedule.model.Write write) {
      gateway.apply(write);
    }

    @Override
    public void recordEvent(
        io.gpufleet.schedule.model.ObjectRef ref, boolean warning, String reason, String message) {
      gateway.recordEvent(ref, warning, reason, message);
    }
  }

  static final String SCOPE_LABEL = "gpufleet.io/test";

  /** NodePools are cluster-scoped: the namespace's deletion does not take them along. */
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

  /** A full NodePool (template, limits, weight, consolidation policy) labelled for {@code ns}. */
  static GenericKubernetesResource createNodePool(RealNamespace ns, String name, String scope) {
    String json =
        """
        {"apiVersion":"karpenter.sh/v1","kind":"NodePool",
         "metadata":{"name":"%s","labels":{"gpufleet.io/test":"%s"}},
         "spec":{"weight":10,"limits":{"nvidia.com/gpu":64,"cpu":"1000"},
          "template":{"metadata":{"labels":{"workload":"gpu"}},"spec":{
            "nodeClassRef":{"group":"karpenter.k8s.aws","kind":"EC2NodeClass","name":"gpu"},
            "requirements":[{"key":"karpenter.k8s.aws/instance-family","operator":"In",
                             "values":["p5","g6e"]}],
            "taints":[{"key":"nvidia.com/gpu","effect":"NoSchedule"}],"expireAfter":"720h"}},
          "disruption":{"consolidationPolicy":"WhenEmptyOrUnderutilized","consolidateAfter":"30s",
            "budgets":[{"nodes":"10%%"},{"nodes":"0","schedule":"0 9 * * mon-fri","duration":"8h",
                        "reasons":["Drifted"]}]}}}
        """
            .formatted(name, scope);
    var item =
        ns.client().getKubernetesSerialization().unmarshal(json, GenericKubernetesResource.class);
    return ns.client().genericKubernetesResources(ScheduleKinds.NODEPOOLS).resource(item).create();
  }

  static GenericKubernetesResource nodePool(RealNamespace ns, String name) {
    return ns.client().genericKubernetesResources(ScheduleKinds.NODEPOOLS).withName(name).get();
  }

  static JsonNode tree(Object o) {
    return Json.MAPPER.valueToTree(o);
  }

  static JsonNode spec(GenericKubernetesResource r) {
    return tree(r.getAdditionalProperties().get("spec"));
  }

  /** The fields (fieldsV1) a manager owns through the given operation, or null. */
  static JsonNode owned(List<ManagedFieldsEntry> entries, String manager, String operation) {
    return entries.stream()
        .filter(e -> manager.equals(e.getManager()) && operation.equals(e.getOperation()))
        .findFirst()
        .map(e -> fields(e))
        .orElse(null);
  }

  static ManagedFieldsEntry gpufleetEntry(List<ManagedFieldsEntry> entries) {
    return entries.stream()
        .filter(e -> "gpufleet".equals(e.getManager()))
        .findFirst()
        .orElseThrow();
  }

  static JsonNode fields(ManagedFieldsEntry e) {
    return read(io.fabric8.kubernetes.client.utils.Serialization.asJson(e.getFieldsV1()));
  }

  static JsonNode read(String json) {
    try {
      return Json.MAPPER.readTree(json);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  int replicas(RealNamespace ns, String name) {
    return ns.client()
        .apps()
        .deployments()
        .inNamespace(ns.name())
        .withName(name)
        .get()
        .getSpec()
        .getReplicas();
  }

  static void awaitNoPods(RealNamespace ns, Map<String, String> labels) {
    RealCluster.await(
        "every pod " + labels + " gone from " + ns.name(),
        RealNamespace.WAIT,
        () ->
            ns.client()
                .pods()
                .inNamespace(ns.name())
                .withLabels(labels)
                .list()
                .getItems()
                .isEmpty(),
        () -> ns.describePods(labels));
  }

  Map<String, String> setUpWorkloads(RealNamespace ns) {
    ns.createNode(
        KwokNodes.Spec.karpenter(
            "gpu-a", "i-0abc000000000a001", "us-east-1a", "g6e.12xlarge", "on-demand", "gpu", 4));
    var chat = RealNamespace.labels("app", "chat", "schedule", "office");
    ns.createDeployment("chat", 2, chat, 1);
    ns.awaitReadyPods(chat, 2);
    return chat;
  }

  @Test
  void shouldApplyBudgetsAndScaleDownAtNightThenRestoreInTheMorning(RealNamespace ns) {
    // Given a selected and an unselected NodePool, a Deployment running two GPU pods, and an HPA
    String pool = ns.name() + "-gpu";
    String other = ns.name() + "-cpu";
    createNodePool(ns, pool, ns.name());
    createNodePool(ns, other, ns.name() + "-other");
    var chat = setUpWorkloads(ns);
    var apiLabels = RealNamespace.labels("app", "api", "schedule", "autoscaled");
    ns.createDeployment("api", 1, apiLabels, 0);
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
                .withLabels(apiLabels)
                .endMetadata()
                .withNewSpec()
                .withMinReplicas(3)
                .withMaxReplicas(10)
                .withNewScaleTargetRef()
                .withApiVersion("apps/v1")
                .withKind("Deployment")
                .withName("api")
                .endScaleTargetRef()
                .endSpec()
                .build())
        .create();
    var dbLabels = RealNamespace.labels("app", "db", "schedule", "office");
    ns.client()
        .apps()
        .statefulSets()
        .inNamespace(ns.name())
        .resource(
            new io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder()
                .withNewMetadata()
                .withName("db")
                .withNamespace(ns.name())
                .withLabels(dbLabels)
                .endMetadata()
                .withNewSpec()
                .withReplicas(1)
                .withServiceName("db")
                .withNewSelector()
                .withMatchLabels(dbLabels)
                .endSelector()
                .withTemplate(ns.podTemplate(dbLabels, 0))
                .endSpec()
                .build())
        .create();
    ns.awaitReadyPods(dbLabels, 1);
    GenericKubernetesResource poolBefore = nodePool(ns, pool);
    GenericKubernetesResource otherBefore = nodePool(ns, other);
    var chatBefore = ns.client().apps().deployments().inNamespace(ns.name()).withName("chat").get();

    // When the schedule runs at night
    ScheduleOutcome night = service(ns).reconcile(NIGHT, false, null);

    // Then it wrote the pool, the Deployment, the StatefulSet and the HPA, and nothing failed
    assertThat(night.status()).as(night.message()).isEqualTo(Status.RECONCILED);
    assertThat(night.window()).isEqualTo("off-hours");
    assertThat(night.changes())
        .extracting(Change::kind, Change::name, Change::result)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("NodePool", pool, Change.Result.APPLIED),
            org.assertj.core.groups.Tuple.tuple("Deployment", "chat", Change.Result.APPLIED),
            org.assertj.core.groups.Tuple.tuple("StatefulSet", "db", Change.Result.APPLIED),
            org.assertj.core.groups.Tuple.tuple(
                "HorizontalPodAutoscaler", "api", Change.Result.APPLIED));
    // the pool's budgets and consolidateAfter are the window's, validated by the CRD's schema
    GenericKubernetesResource poolNight = nodePool(ns, pool);
    JsonNode nightSpec = spec(poolNight);
    assertThat(nightSpec.at("/disruption/budgets").toString())
        .isEqualTo("[{\"nodes\":\"50%\",\"reasons\":[\"Underutilized\",\"Empty\"]}]");
    assertThat(nightSpec.at("/disruption/consolidateAfter").asText()).isEqualTo("5m");
    // every other field of the pool is exactly as it was
    ObjectNode expected = (ObjectNode) spec(poolBefore).deepCopy();
    ObjectNode disruption = (ObjectNode) expected.get("disruption");
    disruption.set("budgets", nightSpec.at("/disruption/budgets"));
    disruption.put("consolidateAfter", "5m");
    assertThat(nightSpec).isEqualTo(expected);
    assertThat(poolNight.getMetadata().getLabels()).isEqualTo(poolBefore.getMetadata().getLabels());
    // by server-side apply, field manager gpufleet, which owns just what it manages
    JsonNode gpufleet = owned(poolNight.getMetadata().getManagedFields(), "gpufleet", "Apply");
    assertThat(gpufleet).as("managedFields of %s", pool).isNotNull();
    assertThat(gpufleet.at("/f:spec/f:disruption").has("f:budgets")).isTrue();
    assertThat(gpufleet.at("/f:spec/f:disruption").has("f:consolidateAfter")).isTrue();
    assertThat(gpufleet.at("/f:spec/f:disruption").has("f:consolidationPolicy")).isFalse();
    assertThat(gpufleet.at("/f:spec").has("f:template")).isFalse();
    assertThat(gpufleet.at("/f:spec").has("f:limits")).isFalse();
    assertThat(gpufleet.at("/f:metadata/f:annotations").has("f:" + Planner.ORIGINAL)).isTrue();
    assertThat(poolNight.getMetadata().getManagedFields())
        .anySatisfy(
            e -> {
              assertThat(e.getManager()).isNotEqualTo("gpufleet");
              assertThat(fields(e).at("/f:spec").has("f:template")).isTrue();
            });
    assertThat(read(poolNight.getMetadata().getAnnotations().get(Planner.ORIGINAL)))
        .isEqualTo(
            read(
                "{\"budgets\":[{\"nodes\":\"10%\"},{\"nodes\":\"0\",\"schedule\":\"0 9 * * mon-fri\","
                    + "\"duration\":\"8h\",\"reasons\":[\"Drifted\"]}],\"consolidateAfter\":\"30s\"}"));
    // the unselected pool is untouched (same resourceVersion: not even a no-op write)
    assertThat(nodePool(ns, other).getMetadata().getResourceVersion())
        .isEqualTo(otherBefore.getMetadata().getResourceVersion());
    // the Deployment is at 0, changed through its scale subresource only (its pod template and
    // annotations are as they were), and the ReplicaSet controller removed its pods
    assertThat(replicas(ns, "chat")).isZero();
    var deployment = ns.client().apps().deployments().inNamespace(ns.name()).withName("chat").get();
    assertThat(deployment.getSpec().getTemplate()).isEqualTo(chatBefore.getSpec().getTemplate());
    assertThat(deployment.getMetadata().getAnnotations())
        .isEqualTo(chatBefore.getMetadata().getAnnotations());
    // (the API server's audit log: the schedule's only write to it was an update of its Scale)
    assertThat(ns.cluster().auditEvents())
        .filteredOn(e -> e.groups().contains("gpufleet-schedule"))
        .filteredOn(e -> e.namespace().equals(ns.name()) && e.name().equals("chat"))
        .extracting(e -> e.verb() + " " + e.apiGroup() + "/" + e.rbacResource() + " " + e.code())
        .containsExactly("update apps/deployments/scale 200");
    // the original replicas are remembered in the namespace's state ConfigMap
    assertThat(state(ns, "Deployment.chat").path("original").toString())
        .isEqualTo("{\"replicas\":2}");
    assertThat(state(ns, "Deployment.chat").path("generation").asLong())
        .isEqualTo(chatBefore.getMetadata().getGeneration());
    assertThat(state(ns, "StatefulSet.db").path("original").toString())
        .isEqualTo("{\"replicas\":1}");
    assertThat(
            ns.client()
                .apps()
                .statefulSets()
                .inNamespace(ns.name())
                .withName("db")
                .get()
                .getSpec()
                .getReplicas())
        .isZero();
    awaitNoPods(ns, chat);
    awaitNoPods(ns, dbLabels);
    // the HPA's minimum went down to 1, its Deployment was left to it
    var hpa =
        ns.client()
            .autoscaling()
            .v2()
            .horizontalPodAutoscalers()
            .inNamespace(ns.name())
            .withName("api")
            .get();
    assertThat(hpa.getSpec().getMinReplicas()).isEqualTo(1);
    assertThat(hpa.getSpec().getMaxReplicas()).isEqualTo(10);
    assertThat(replicas(ns, "api")).isEqualTo(1);
    // and a Kubernetes Event on the Deployment says so
    assertThat(ns.client().v1().events().inNamespace(ns.name()).list().getItems())
        .anySatisfy(
            e -> {
              assertThat(e.getReason()).isEqualTo("GpuFleetScheduleApplied");
              assertThat(e.getInvolvedObject().getName()).isEqualTo("chat");
            });

    // When it runs again later that night
    String poolVersion = poolNight.getMetadata().getResourceVersion();
    var deploymentNight =
        ns.client().apps().deployments().inNamespace(ns.name()).withName("chat").get();
    ScheduleOutcome again = service(ns).reconcile(NIGHT.plusSeconds(900), false, null);

    // Then it writes nothing: the pool keeps its resourceVersion; the Deployment (whose status the
    // controller keeps updating) its generation and annotations
    assertThat(again.writes()).isZero();
    assertThat(again.changes()).isEmpty();
    assertThat(nodePool(ns, pool).getMetadata().getResourceVersion()).isEqualTo(poolVersion);
    var deploymentAgain =
        ns.client().apps().deployments().inNamespace(ns.name()).withName("chat").get();
    assertThat(deploymentAgain.getMetadata().getGeneration())
        .isEqualTo(deploymentNight.getMetadata().getGeneration());
    assertThat(deploymentAgain.getMetadata().getAnnotations())
        .isEqualTo(deploymentNight.getMetadata().getAnnotations());

    // When it runs in the morning
    ScheduleOutcome morning = service(ns).reconcile(NEXT_DAY, false, null);

    // Then everything is restored, bookkeeping removed, and the pods come back
    assertThat(morning.status()).as(morning.message()).isEqualTo(Status.RECONCILED);
    assertThat(morning.changes()).extracting(Change::action).containsOnly(Action.RESTORE);
    assertThat(morning.changes()).hasSize(4);
    GenericKubernetesResource poolMorning = nodePool(ns, pool);
    assertThat(spec(poolMorning)).isEqualTo(spec(poolBefore));
    assertThat(poolMorning.getMetadata().getAnnotations())
        .doesNotContainKeys(Planner.ORIGINAL, Planner.APPLIED);
    assertThat(replicas(ns, "chat")).isEqualTo(2);
    assertThat(state(ns, "Deployment.chat")).isNull();
    assertThat(state(ns, "StatefulSet.db")).isNull();
    assertThat(
            ns.client()
                .apps()
                .statefulSets()
                .inNamespace(ns.name())
                .withName("db")
                .get()
                .getSpec()
                .getReplicas())
        .isEqualTo(1);
    assertThat(
            ns.client()
                .autoscaling()
                .v2()
                .horizontalPodAutoscalers()
                .inNamespace(ns.name())
                .withName("api")
                .get()
                .getSpec()
                .getMinReplicas())
        .isEqualTo(3);
    assertThat(ns.awaitReadyPods(chat, 2))
        .allSatisfy(p -> assertThat(p.getSpec().getNodeName()).isEqualTo(ns.nodeName("gpu-a")));
  }

  @Test
  void shouldNotRestoreReplicasSomeoneElseChangedDuringTheNight(RealNamespace ns) {
    // Given the night's scale-down
    var chat = setUpWorkloads(ns);
    ScheduleOutcome night = service(ns).reconcile(NIGHT, false, null);
    assertThat(night.writes()).as(night.changes().toString()).isEqualTo(1);
    awaitNoPods(ns, chat);

    // When an engineer scales the Deployment to 1 through the scale subresource
    ns.client().apps().deployments().inNamespace(ns.name()).withName("chat").scale(1);
    ns.awaitReadyPods(chat, 1);
    ScheduleOutcome laterThatNight = service(ns).reconcile(NIGHT.plusSeconds(900), false, null);

    // Then the schedule holds off: no write, not scaled down again
    assertThat(laterThatNight.writes()).isZero();
    assertThat(laterThatNight.notices())
        .filteredOn(c -> c.name().equals("chat"))
        .singleElement()
        .satisfies(c -> assertThat(c.action()).isEqualTo(Action.HOLD));
    assertThat(replicas(ns, "chat")).isEqualTo(1);

    // When the morning comes
    ScheduleOutcome morning = service(ns).reconcile(NEXT_DAY, false, null);

    // Then the original 2 is not restored: their 1 stays, gpufleet's bookkeeping is gone
    assertThat(morning.status()).as(morning.message()).isEqualTo(Status.RECONCILED);
    assertThat(morning.changes())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.action()).isEqualTo(Action.RELEASE);
              assertThat(c.result()).isEqualTo(Change.Result.APPLIED);
              assertThat(c.note()).contains("replicas: gpufleet 0, now 1");
            });
    var after = ns.client().apps().deployments().inNamespace(ns.name()).withName("chat").get();
    assertThat(after.getSpec().getReplicas()).isEqualTo(1);
    assertThat(state(ns, "Deployment.chat")).as("bookkeeping removed").isNull();
    assertThat(ns.awaitReadyPods(chat, 1)).hasSize(1);
    assertThat(ns.client().v1().events().inNamespace(ns.name()).list().getItems())
        .anySatisfy(
            e -> {
              assertThat(e.getReason()).isEqualTo("GpuFleetScheduleReleased");
              assertThat(e.getType()).isEqualTo("Warning");
            });
  }

  @Test
  void shouldRefuseARestoreWhenTheObjectChangedBetweenReadAndWrite(RealNamespace ns) {
    // Given the night's scale-down and the morning's restore, planned from a read
    var chat = setUpWorkloads(ns);
    service(ns).reconcile(NIGHT, false, null);
    bindWrites(ns);
    var gateway = new ScheduleClusterAdapter(ns.cluster().client(), Clock.systemUTC());
    List<TargetState> read =
        gateway.workloads().stream().filter(w -> ns.name().equals(w.ref().namespace())).toList();
    var plan = Planner.plan(service(ns).policy(), NEXT_DAY, List.of(), read);
    var restore =
        plan.writes().stream()
            .filter(s -> s.change().name().equals("chat"))
            .findFirst()
            .orElseThrow();
    assertThat(restore.change().action()).isEqualTo(Action.RESTORE);

    // When somebody scales the Deployment before the write lands
    ns.client().apps().deployments().inNamespace(ns.name()).withName("chat").scale(1);

    // Then the API server refuses the scale (resourceVersion precondition: 409), nothing changes
    assertThatThrownBy(() -> gateway.apply(restore.write()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("HTTP 409")
        .hasMessageContaining("Deployment " + ns.name() + "/chat");
    var after = ns.client().apps().deployments().inNamespace(ns.name()).withName("chat").get();
    assertThat(after.getSpec().getReplicas()).isEqualTo(1);
    assertThat(state(ns, "Deployment.chat")).as("still remembered").isNotNull();
    assertThat(Objects.requireNonNull(ns.awaitReadyPods(chat, 1))).hasSize(1);
  }

  static GenericKubernetesResource createScaledObject(
      RealNamespace ns, String name, String pausedReplicas) {
    String annotations =
        pausedReplicas == null
            ? ""
            : ",\"annotations\":{\"" + Planner.KEDA_PAUSED + "\":\"" + pausedReplicas + "\"}";
    String json =
        """
        {"apiVersion":"keda.sh/v1alpha1","kind":"ScaledObject",
         "metadata":{"name":"%1$s","namespace":"%2$s","labels":{"schedule":"keda"}%3$s},
         "spec":{"scaleTargetRef":{"name":"%1$s"},"minReplicaCount":1,"maxReplicaCount":5,
          "triggers":[{"type":"aws-sqs-queue","metadata":{"queueLength":"5"}}]}}
        """
            .formatted(name, ns.name(), annotations);
    var item =
        ns.client().getKubernetesSerialization().unmarshal(json, GenericKubernetesResource.class);
    return ns.client()
        .genericKubernetesResources(ScheduleKinds.SCALEDOBJECTS)
        .inNamespace(ns.name())
        .resource(item)
        .create();
  }

  static GenericKubernetesResource scaledObject(RealNamespace ns, String name) {
    return ns.client()
        .genericKubernetesResources(ScheduleKinds.SCALEDOBJECTS)
        .inNamespace(ns.name())
        .withName(name)
        .get();
  }

  static String paused(RealNamespace ns, String name) {
    var a = scaledObject(ns, name).getMetadata().getAnnotations();
    return a == null ? null : a.get(Planner.KEDA_PAUSED);
  }

  @Test
  void shouldPauseScaledObjectsAndGiveBackThePausedReplicasAnnotationByOwnership(RealNamespace ns) {
    // Given two KEDA-scaled Deployments: worker's ScaledObject already paused at 5, indexer's not
    ns.createNode(
        KwokNodes.Spec.karpenter(
            "gpu-k", "i-0abc000000000b001", "us-east-1a", "g6e.12xlarge", "on-demand", "gpu", 4));
    ns.createDeployment("worker", 1, RealNamespace.labels("app", "worker"), 0);
    ns.createDeployment("indexer", 1, RealNamespace.labels("app", "indexer"), 0);
    createScaledObject(ns, "worker", "5");
    createScaledObject(ns, "indexer", null);

    // When the night run pauses both
    ScheduleOutcome night = service(ns).reconcile(NIGHT, false, null);

    // Then both carry paused-replicas 0, owned by gpufleet; their Deployments are left to KEDA
    assertThat(night.status()).as(night.message()).isEqualTo(Status.RECONCILED);
    assertThat(night.writes()).isEqualTo(2);
    assertThat(paused(ns, "worker")).isEqualTo("0");
    assertThat(paused(ns, "indexer")).isEqualTo("0");
    JsonNode owns =
        owned(scaledObject(ns, "worker").getMetadata().getManagedFields(), "gpufleet", "Apply");
    assertThat(owns).as("gpufleet's managedFields entry").isNotNull();
    assertThat(owns.at("/f:metadata/f:annotations").has("f:" + Planner.KEDA_PAUSED)).isTrue();
    assertThat(replicas(ns, "worker")).isEqualTo(1);
    assertThat(night.notices()).filteredOn(c -> c.kind().equals("Deployment")).isEmpty();

    // When somebody pauses indexer at 2 themselves during the night (an update: they own the key)
    ns.client()
        .genericKubernetesResources(ScheduleKinds.SCALEDOBJECTS)
        .inNamespace(ns.name())
        .withName("indexer")
        .edit(
            so -> {
              so.getMetadata().getAnnotations().put(Planner.KEDA_PAUSED, "2");
              return so;
            });
    ScheduleOutcome morning = service(ns).reconcile(NEXT_DAY, false, null);

    // Then worker's own 5 is back, and indexer keeps their 2 (gpufleet gave up only what it owned)
    assertThat(morning.status()).as(morning.message()).isEqualTo(Status.RECONCILED);
    assertThat(morning.changes())
        .extracting(Change::name, Change::action)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("worker", Action.RESTORE),
            org.assertj.core.groups.Tuple.tuple("indexer", Action.RELEASE));
    assertThat(paused(ns, "worker")).isEqualTo("5");
    assertThat(paused(ns, "indexer")).isEqualTo("2");
    for (String name : List.of("worker", "indexer")) {
      assertThat(scaledObject(ns, name).getMetadata().getAnnotations())
          .doesNotContainKeys(Planner.ORIGINAL, Planner.APPLIED);
    }
  }

  @Test
  void shouldRemoveAPausedReplicasAnnotationItAddedWhenRestoring(RealNamespace ns) {
    // Given a ScaledObject that was not paused
    ns.createNode(
        KwokNodes.Spec.karpenter(
            "gpu-k", "i-0abc000000000c001", "us-east-1a", "g6e.12xlarge", "on-demand", "gpu", 4));
    ns.createDeployment("indexer", 1, RealNamespace.labels("app", "indexer"), 0);
    createScaledObject(ns, "indexer", null);

    // When the night pauses it and the morning restores it
    service(ns).reconcile(NIGHT, false, null);
    assertThat(paused(ns, "indexer")).isEqualTo("0");
    ScheduleOutcome morning = service(ns).reconcile(NEXT_DAY, false, null);

    // Then the annotation is gone again (gpufleet was its only owner), and so is gpufleet's entry
    assertThat(morning.changes())
        .singleElement()
        .satisfies(c -> assertThat(c.action()).isEqualTo(Action.RESTORE));
    var so = scaledObject(ns, "indexer");
    assertThat(paused(ns, "indexer")).isNull();
    assertThat(
            so.getMetadata().getAnnotations() == null
                ? Map.of()
                : so.getMetadata().getAnnotations())
        .doesNotContainKeys(Planner.ORIGINAL, Planner.APPLIED);
    JsonNode gpufleet = owned(so.getMetadata().getManagedFields(), "gpufleet", "Apply");
    assertThat(gpufleet == null || gpufleet.at("/f:metadata/f:annotations").isMissingNode())
        .isTrue();
  }
}
