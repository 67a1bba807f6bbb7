package io.gpufleet.schedule.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.gpufleet.core.catalog.AcceleratorKind;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.k8s.KubeEvents;
import io.gpufleet.schedule.Planner;
import io.gpufleet.schedule.ScheduleClusterPort;
import io.gpufleet.schedule.model.ObjectRef;
import io.gpufleet.schedule.model.PodTemplate;
import io.gpufleet.schedule.model.TargetState;
import io.gpufleet.schedule.model.Write;
import io.gpufleet.schedule.policy.Policy.WorkloadKind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@link ScheduleClusterPort} over fabric8, reading every kind as a generic resource (no typed
 * models, no CRD classes). NodePools, HPAs and ScaledObjects are written with server-side apply,
 * field manager {@value #FIELD_MANAGER}, force; Deployments and StatefulSets only through their
 * {@code scale} subresource (see below).
 *
 * <p>Why the scale subresource for Deployments and StatefulSets: a permission to patch the objects
 * themselves is a permission to change their pod template, i.e. to run any image as any service
 * account in the namespace. {@code deployments/scale} can change nothing but the replica count. The
 * bookkeeping (original and applied replicas) that lives in annotations on the other kinds
 * therefore lives in a ConfigMap {@value #STATE_CONFIGMAP} in the workload's own namespace, one key
 * {@code <Kind>.<name>} per workload ({@link ReplicaState}), which the same namespaced binding lets
 * the schedule write. A replica change is two requests; their order keeps every failure
 * recoverable: on the way down the state is written first (a scale that then fails leaves the
 * object's generation where it was, which the next read recognises as "never landed" and plans
 * again), on the way back the replicas are restored first and the key removed afterwards.
 *
 * <p>Why apply and not a merge patch: an apply names exactly the fields gpufleet manages, and a
 * later apply that leaves one out gives it up (the API server removes it only while gpufleet still
 * owns it). That is what restoring needs: a KEDA {@code paused-replicas} annotation that did not
 * exist before is removed by the restoring apply, while one that somebody else has since set (and
 * so owns) is kept. {@code force} takes over fields another manager set (the original replicas, a
 * pre-existing paused-replicas); the originals are in gpufleet's annotations. The object's uid and
 * resourceVersion travel in the apply as preconditions, so a change between the read and the write
 * is a 409 for this run and healed by the next, never overwritten blindly.
 */
public final class ScheduleClusterAdapter implements ScheduleClusterPort {
  public static final String FIELD_MANAGER = "gpufleet";

  /** The ConfigMap, one per namespace, that remembers replica counts the schedule changed. */
  public static final String STATE_CONFIGMAP = "gpufleet-schedule";

  static final long PAGE = 500;

  public static final ResourceDefinitionContext NODEPOOLS =
      ctx("karpenter.sh", "v1", "NodePool", "nodepools", false);
  public static final ResourceDefinitionContext DEPLOYMENTS =
      ctx("apps", "v1", "Deployment", "deployments", true);
  public static final ResourceDefinitionContext STATEFULSETS =
      ctx("apps", "v1", "StatefulSet", "statefulsets", true);
  public static final ResourceDefinitionContext HPAS =
      ctx("autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", true);
  public static final ResourceDefinitionContext SCALEDOBJECTS =
      ctx("keda.sh", "v1alpha1", "ScaledObject", "scaledobjects", true);
  public static final ResourceDefinitionContext CONFIGMAPS =
      ctx("", "v1", "ConfigMap", "configmaps", true);

  private static final PatchContext APPLY =
      new PatchContext.Builder()
          .withPatchType(PatchType.SERVER_SIDE_APPLY)
          .withFieldManager(FIELD_MANAGER)
          .withForce(true)
          .build();

  private final KubernetesClient client;
  private final java.time.Clock clock;

  public ScheduleClusterAdapter(KubernetesClient client, java.time.Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /**
   * Builds, without any request, what a run's reads and writes need from a JSON mapper: list
   * answers of every kind mapped to states, an apply body, an Event. SnapStart priming; no network,
   * credentials, tokens or clock.
   */
  public void prime() {
    prime(client.getKubernetesSerialization());
  }

  public static void prime(io.fabric8.kubernetes.client.utils.KubernetesSerialization json) {
    var list = json.unmarshal(SAMPLE_LIST, GenericKubernetesResourceList.class);
    var pool = toNodePool(list.getItems().get(0));
    for (WorkloadKind k : WorkloadKind.values()) {
      toWorkload(list.getItems().get(1), k);
    }
    var write =
        new Write(
            pool.ref(),
            Json.MAPPER.createObjectNode().put("consolidateAfter", "1m"),
            Map.of(Planner.ORIGINAL, "{}"));
    json.unmarshal(Json.write(applyBody(write)), GenericKubernetesResource.class);
    json.asJson(
        new EventBuilder()
            .withNewMetadata()
            .withName("prime")
            .withNamespace("default")
            .endMetadata()
            .withInvolvedObject(
                new ObjectReferenceBuilder().withKind("NodePool").withName("p").build())
            .withType("Normal")
            .withReason("Prime")
            .withMessage("prime")
            .build());
  }

  private static final String SAMPLE_LIST =
      """
      {"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":"1","continue":""},"items":[
       {"apiVersion":"karpenter.sh/v1","kind":"NodePool","metadata":{"name":"p","uid":"u",
        "resourceVersion":"1","creationTimestamp":"1970-01-01T00:00:00Z","labels":{"a":"b"},
        "annotations":{"a":"b"}},"spec":{"disruption":{"consolidateAfter":"1m",
        "budgets":[{"nodes":"10%","reasons":["Empty"]}]}}},
       {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"n","uid":"u",
        "resourceVersion":"1","creationTimestamp":"1970-01-01T00:00:00Z","labels":{"a":"b"},
        "annotations":{"autoscaling.keda.sh/paused-replicas":"0"},"ownerReferences":[{"apiVersion":
        "keda.sh/v1alpha1","kind":"ScaledObject","name":"s","uid":"u"}]},"spec":{"replicas":1,
        "minReplicas":1,"maxReplicas":2,"scaleTargetRef":{"kind":"Deployment","name":"d"}}}]}
      """;

  private static ResourceDefinitionContext ctx(
      String group, String version, String kind, String plural, boolean namespaced) {
    return new ResourceDefinitionContext.Builder()
        .withGroup(group)
        .withVersion(version)
        .withKind(kind)
        .withPlural(plural)
        .withNamespaced(namespaced)
        .build();
  }

  @Override
  public List<TargetState> nodePools() {
    return list(NODEPOOLS).stream().map(ScheduleClusterAdapter::toNodePool).toList();
  }

  @Override
  public List<TargetState> workloads() {
    // four listings in parallel: each is one round trip (or a few pages)
    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<Map<String, Map<String, String>>> states = pool.submit(this::replicaStates);
      List<Callable<List<TargetState>>> calls =
          List.of(
              () -> map(list(DEPLOYMENTS), WorkloadKind.DEPLOYMENT),
              () -> map(list(STATEFULSETS), WorkloadKind.STATEFULSET),
              () -> map(list(HPAS), WorkloadKind.HPA),
              () -> map(list(SCALEDOBJECTS), WorkloadKind.SCALED_OBJECT));
      var out = new ArrayList<TargetState>();
      for (Future<List<TargetState>> f : calls.stream().map(pool::submit).toList()) {
        out.addAll(f.get());
      }
      var byNamespace = states.get();
      return out.stream().map(w -> ReplicaState.merge(w, byNamespace)).toList();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while listing workloads", e);
    }
  }

  /**
   * The data of every namespace's {@value #STATE_CONFIGMAP} (namespace -> key -> JSON): one listing
   * across namespaces with a field selector on the name, which RBAC authorises by resourceNames.
   */
  private Map<String, Map<String, String>> replicaStates() {
    var out = new java.util.HashMap<String, Map<String, String>>();
    String token = null;
    do {
      var options =
          new ListOptionsBuilder()
              .withLimit(PAGE)
              .withContinue(token)
              .withFieldSelector("metadata.name=" + STATE_CONFIGMAP)
              .build();
      var page = client.configMaps().inAnyNamespace().list(options);
      for (var cm : page.getItems()) {
        out.put(cm.getMetadata().getNamespace(), cm.getData() == null ? Map.of() : cm.getData());
      }
      token = page.getMetadata() == null ? null : page.getMetadata().getContinue();
    } while (token != null && !token.isEmpty());
    return out;
  }

  private static List<TargetState> map(List<GenericKubernetesResource> items, WorkloadKind kind) {
    return items.stream().map(r -> toWorkload(r, kind)).toList();
  }

  /** Every page of a kind in all namespaces; a kind the cluster does not serve (404) is empty. */
  private List<GenericKubernetesResource> list(ResourceDefinitionContext ctx) {
    var out = new ArrayList<GenericKubernetesResource>();
    String token = null;
    try {
      do {
        var options = new ListOptionsBuilder().withLimit(PAGE).withContinue(token).build();
        GenericKubernetesResourceList page =
            ctx.isNamespaceScoped()
                ? client.genericKubernetesResources(ctx).inAnyNamespace().list(options)
                : client.genericKubernetesResources(ctx).list(options);
        out.addAll(page.getItems());
        token = page.getMetadata() == null ? null : page.getMetadata().getContinue();
      } while (token != null && !token.isEmpty());
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return List.of();
      }
      throw e;
    }
    return out;
  }

  static TargetState toNodePool(GenericKubernetesResource r) {
    JsonNode spec = Json.MAPPER.valueToTree(r.getAdditionalProperties().get("spec"));
    ObjectNode fields = Json.MAPPER.createObjectNode();
    JsonNode disruption = spec == null ? null : spec.path("disruption");
    if (disruption != null && disruption.has("budgets")) {
      fields.set("budgets", disruption.get("budgets"));
    }
    if (disruption != null && disruption.hasNonNull("consolidateAfter")) {
      fields.set("consolidateAfter", disruption.get("consolidateAfter"));
    }
    return new TargetState(
        ref(r, NODEPOOLS),
        null,
        labels(r),
        annotations(r),
        created(r),
        fields,
        null,
        null,
        null,
        null);
  }

  static TargetState toWorkload(GenericKubernetesResource r, WorkloadKind kind) {
    JsonNode spec = Json.MAPPER.valueToTree(r.getAdditionalProperties().get("spec"));
    if (spec == null) {
      spec = Json.MAPPER.createObjectNode();
    }
    ObjectNode fields = Json.MAPPER.createObjectNode();
    Integer max = null;
    String targetKind = null;
    String targetName = null;
    String controlledBy = null;
    PodTemplate pods = null;
    ResourceDefinitionContext ctx;
    switch (kind) {
      case DEPLOYMENT, STATEFULSET -> {
        ctx = kind == WorkloadKind.DEPLOYMENT ? DEPLOYMENTS : STATEFULSETS;
        fields.put("replicas", spec.path("replicas").asInt(1));
        pods = podTemplate(spec.path("template"));
      }
      case HPA -> {
        ctx = HPAS;
        fields.put("minReplicas", spec.path("minReplicas").asInt(1));
        max = spec.has("maxReplicas") ? spec.get("maxReplicas").asInt() : null;
        targetKind = spec.path("scaleTargetRef").path("kind").asText(null);
        targetName = spec.path("scaleTargetRef").path("name").asText(null);
        List<OwnerReference> owners = r.getMetadata().getOwnerReferences();
        if (owners != null) {
          controlledBy =
              owners.stream()
                  .filter(o -> "ScaledObject".equals(o.getKind()))
                  .map(o -> "ScaledObject " + o.getName())
                  .findFirst()
                  .orElse(null);
        }
      }
      case SCALED_OBJECT -> {
        ctx = SCALEDOBJECTS;
        String paused = annotations(r).get(Planner.KEDA_PAUSED);
        if (paused != null) {
          fields.put("pausedReplicas", paused);
        }
        targetKind = spec.path("scaleTargetRef").path("kind").asText("Deployment");
        targetName = spec.path("scaleTargetRef").path("name").asText(null);
      }
      default -> throw new IllegalArgumentException(kind.toString());
    }
    return new TargetState(
        ref(r, ctx),
        kind,
        labels(r),
        annotations(r),
        created(r),
        fields,
        max,
        targetKind,
        targetName,
        controlledBy,
        pods);
  }

  /** The device plugins' resources a replica's accelerators are requested as. */
  static final Set<String> ACCELERATORS =
      java.util.Arrays.stream(AcceleratorKind.values())
          .flatMap(k -> k.resource().stream())
          .collect(java.util.stream.Collectors.toUnmodifiableSet());

  /** One replica's accelerators and labels, from a pod template. */
  static PodTemplate podTemplate(JsonNode template) {
    JsonNode spec = template.path("spec");
    int sum = 0;
    for (JsonNode c : spec.path("containers")) {
      sum += accelerators(c);
    }
    int init = 0;
    for (JsonNode c : spec.path("initContainers")) {
      init = Math.max(init, accelerators(c));
    }
    var labels = new java.util.LinkedHashMap<String, String>();
    template
        .path("metadata")
        .path("labels")
        .properties()
        .forEach(e -> labels.put(e.getKey(), e.getValue().asText()));
    return new PodTemplate(Math.max(sum, init), labels);
  }

  private static int accelerators(JsonNode container) {
    int n = 0;
    JsonNode resources = container.path("resources");
    for (String r : ACCELERATORS) {
      JsonNode q = resources.path("requests").path(r);
      if (q.isMissingNode()) {
        q = resources.path("limits").path(r);
      }
      // extended resources are whole numbers; anything else asks for no device
      if (q.isInt() || (q.isTextual() && q.asText().matches("\\d{1,4}"))) {
        n += q.asInt();
      }
    }
    return n;
  }

  private static ObjectRef ref(GenericKubernetesResource r, ResourceDefinitionContext ctx) {
    var m = r.getMetadata();
    return new ObjectRef(
        ctx.getGroup() + "/" + ctx.getVersion(),
        ctx.getKind(),
        ctx.isNamespaceScoped() ? m.getNamespace() : null,
        m.getName(),
        m.getUid(),
        m.getResourceVersion(),
        m.getGeneration());
  }

  private static Map<String, String> labels(GenericKubernetesResource r) {
    return r.getMetadata().getLabels() == null ? Map.of() : r.getMetadata().getLabels();
  }

  private static Map<String, String> annotations(GenericKubernetesResource r) {
    return r.getMetadata().getAnnotations() == null ? Map.of() : r.getMetadata().getAnnotations();
  }

  private static Instant created(GenericKubernetesResource r) {
    String t = r.getMetadata().getCreationTimestamp();
    try {
      return t == null ? null : Instant.parse(t);
    } catch (java.time.format.DateTimeParseException e) {
      return null;
    }
  }

  /** The apply document for a write: identity, preconditions, managed fields, bookkeeping. */
  public static ObjectNode applyBody(Write w) {
    ObjectRef ref = w.ref();
    ObjectNode body = Json.MAPPER.createObjectNode();
    body.put("apiVersion", ref.apiVersion()).put("kind", ref.kind());
    ObjectNode meta = body.putObject("metadata");
    meta.put("name", ref.name());
    if (ref.namespace() != null) {
      meta.put("namespace", ref.namespace());
    }
    if (ref.uid() != null) {
      meta.put("uid", ref.uid());
    }
    if (ref.resourceVersion() != null) {
      meta.put("resourceVersion", ref.resourceVersion());
    }
    ObjectNode annotations = Json.MAPPER.createObjectNode();
    w.annotations().forEach(annotations::put);
    ObjectNode f = w.fields();
    switch (ref.kind()) {
      case "NodePool" -> {
        if (f.has("budgets") || f.has("consolidateAfter")) {
          ObjectNode d = body.putObject("spec").putObject("disruption");
          if (f.has("budgets")) {
            d.set("budgets", f.get("budgets"));
          }
          if (f.has("consolidateAfter")) {
            d.set("consolidateAfter", f.get("consolidateAfter"));
          }
        }
      }
      case "Deployment", "StatefulSet" -> {
        if (f.has("replicas")) {
          body.putObject("spec").set("replicas", f.get("replicas"));
        }
      }
      case "HorizontalPodAutoscaler" -> {
        if (f.has("minReplicas")) {
          body.putObject("spec").set("minReplicas", f.get("minReplicas"));
        }
      }
      case "ScaledObject" -> {
        if (f.has("pausedReplicas")) {
          annotations.put(Planner.KEDA_PAUSED, f.get("pausedReplicas").asText());
        }
      }
      default -> throw new IllegalArgumentException("unexpected kind " + ref.kind());
    }
    if (!annotations.isEmpty()) {
      meta.set("annotations", annotations);
    }
    return body;
  }

  @Override
  public void apply(Write w) {
    if (ReplicaState.KINDS.contains(w.ref().kind())) {
      try {
        applyReplicas(w);
      } catch (KubernetesClientException e) {
        throw failure(w, e);
      }
      return;
    }
    ResourceDefinitionContext ctx = context(w.ref().kind());
    String body = Json.write(applyBody(w));
    // resource(item) names the object without a read: withName(..).patch(..) would GET it first
    var item = new GenericKubernetesResource();
    item.setApiVersion(w.ref().apiVersion());
    item.setKind(w.ref().kind());
    item.setMetadata(
        new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
            .withName(w.ref().name())
            .withNamespace(w.ref().namespace())
            .build());
    try {
      if (ctx.isNamespaceScoped()) {
        client
            .genericKubernetesResources(ctx)
            .inNamespace(w.ref().namespace())
            .resource(item)
            .patch(APPLY, body);
      } else {
        client.genericKubernetesResources(ctx).resource(item).patch(APPLY, body);
      }
    } catch (KubernetesClientException e) {
      throw failure(w, e);
    }
  }

  private static IllegalStateException failure(Write w, KubernetesClientException e) {
    String msg =
        e.getStatus() != null && e.getStatus().getMessage() != null
            ? e.getStatus().getMessage()
            : e.getMessage();
    if (e.getCode() == 409) {
      return new IllegalStateException(
          "HTTP 409: "
              + w.ref().display()
              + " changed while reconciling ("
              + msg
              + "); the next run retries",
          e);
    }
    return new IllegalStateException("HTTP " + e.getCode() + ": " + msg, e);
  }

  /**
   * A Deployment or StatefulSet: remember (state first), then scale; or scale back, then forget.
   */
  private void applyReplicas(Write w) {
    ObjectRef ref = w.ref();
    boolean remember = !w.annotations().isEmpty();
    if (remember) {
      patchState(ref, ReplicaState.entry(w));
    }
    if (w.fields().has("replicas")) {
      var scale =
          new io.fabric8.kubernetes.api.model.autoscaling.v1.ScaleBuilder()
              .withNewMetadata()
              .withName(ref.name())
              .withNamespace(ref.namespace())
              .withUid(ref.uid())
              .withResourceVersion(ref.resourceVersion())
              .endMetadata()
              .withNewSpec()
              .withReplicas(w.fields().get("replicas").asInt())
              .endSpec()
              .build();
      // PUT .../<kind>/<name>/scale; the resourceVersion makes it conditional (409 if changed)
      if (ref.kind().equals("Deployment")) {
        client.apps().deployments().inNamespace(ref.namespace()).withName(ref.name()).scale(scale);
      } else {
        client.apps().statefulSets().inNamespace(ref.namespace()).withName(ref.name()).scale(scale);
      }
    }
    if (!remember) {
      patchState(ref, null);
    }
  }

  /**
   * Sets (or with null removes) the workload's key in its namespace's state ConfigMap with a JSON
   * merge patch, so concurrent writes of other keys never conflict; creates the ConfigMap when it
   * does not exist yet.
   */
  private void patchState(ObjectRef ref, String entry) {
    String key = ReplicaState.key(ref);
    var data = Json.MAPPER.createObjectNode();
    if (entry == null) {
      data.putNull(key);
    } else {
      data.put(key, entry);
    }
    var patch = Json.MAPPER.createObjectNode();
    patch.set("data", data);
    var stub =
        new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
            .withNewMetadata()
            .withName(STATE_CONFIGMAP)
            .withNamespace(ref.namespace())
            .endMetadata()
            .build();
    var configMaps = client.configMaps().inNamespace(ref.namespace());
    for (int attempt = 0; ; attempt++) {
      try {
        configMaps.resource(stub).patch(PatchContext.of(PatchType.JSON_MERGE), Json.write(patch));
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404 || entry == null) {
          if (e.getCode() == 404) {
            return; // nothing to forget
          }
          throw e;
        }
      }
      try {
        configMaps.resource(ReplicaState.newConfigMap(ref.namespace(), key, entry)).create();
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt > 0) {
          throw e;
        }
        // created concurrently by another write of this run: patch it
      }
    }
  }

  private static ResourceDefinitionContext context(String kind) {
    return switch (kind) {
      case "NodePool" -> NODEPOOLS;
      case "Deployment" -> DEPLOYMENTS;
      case "StatefulSet" -> STATEFULSETS;
      case "HorizontalPodAutoscaler" -> HPAS;
      case "ScaledObject" -> SCALEDOBJECTS;
      default -> throw new IllegalArgumentException("unexpected kind " + kind);
    };
  }

  @Override
  public void recordEvent(ObjectRef ref, boolean warning, String reason, String message) {
    KubeEvents.record(
        client,
        clock.instant(),
        "gpufleet-disruption-schedule",
        ref.namespace() == null ? "default" : ref.namespace(),
        new ObjectReferenceBuilder()
            .withApiVersion(ref.apiVersion())
            .withKind(ref.kind())
            .withName(ref.name())
            .withNamespace(ref.namespace())
            .withUid(ref.uid())
            .build(),
        warning,
        reason,
        message);
  }
}
