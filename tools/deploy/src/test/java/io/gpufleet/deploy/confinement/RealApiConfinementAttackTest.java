package io.gpufleet.deploy.confinement;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.deploy.confinement.ApiCalls.Caller;
import io.gpufleet.deploy.confinement.ApiCalls.Response;
import io.gpufleet.deploy.confinement.ConfinementAttack.Outcome;
import io.gpufleet.deploy.confinement.ConfinementAttack.Target;
import io.gpufleet.deploy.confinement.ConfinementSpec.Policy;
import io.gpufleet.sim.real.FunctionIdentity;
import io.gpufleet.sim.real.KwokNodes;
import io.gpufleet.sim.real.RealCluster;
import io.gpufleet.sim.real.RealNamespace;
import io.gpufleet.testkit.real.RealApiServerTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Real API server tier, adversarial: with Karpenter's and KEDA's published CRDs and the shipped
 * deploy/rbac and deploy/admission, each identity tries every field of the published schema of
 * every object it may write, outside the fields its confinement spec owns (owner references,
 * finalizers, foreign labels and annotations included), plus taints and effects, uncordon,
 * deletion, subresources and other kinds. Every such write is refused; the functions' own writes
 * succeed. The number of attempted writes per identity is printed and kept in
 * target/confinement-attack.txt.
 */
@RealApiServerTest
class RealApiConfinementAttackTest {
  static final Path REPORT = Path.of("target", "confinement-attack.txt");

  static Map<String, Policy> policies(Map<String, String> overrides) {
    var out = new LinkedHashMap<String, Policy>();
    for (var spec : ConfinementRender.specs(ConfinementRenderTest.ROOT, overrides)) {
      if (spec.admission() != null) {
        spec.admission().policies().forEach(p -> out.put(p.name(), p));
      }
    }
    return out;
  }

  static ApiCalls api(RealCluster cluster) {
    return new ApiCalls(cluster.url(), cluster.caData());
  }

  static Caller admin(RealCluster cluster) {
    return Caller.bearer("admin", cluster.token());
  }

  static Caller as(RealCluster cluster, FunctionIdentity identity) {
    return Caller.bearer(identity.function(), cluster.tokenOf(identity));
  }

  static JsonNode create(ApiCalls api, Caller admin, String path, String json) {
    Response r = api.send(admin, "POST", path, "application/json", json);
    assertThat(r.ok()).as("POST " + path + ": " + r.body()).isTrue();
    return r.json();
  }

  // --- fixtures ---

  static final String POOL =
      """
      {"apiVersion":"karpenter.sh/v1","kind":"NodePool",
       "metadata":{"name":"%s","labels":{"team":"ml"},"annotations":{"example.com/owner":"ml"}},
       "spec":{%s
        "template":{"metadata":{"labels":{"workload":"gpu"}},"spec":{
          "nodeClassRef":{"group":"karpenter.k8s.aws","kind":"EC2NodeClass","name":"gpu"},
          "requirements":[{"key":"karpenter.k8s.aws/instance-family","operator":"In",
                           "values":["p5","g6e"]}],
          "taints":[{"key":"nvidia.com/gpu","effect":"NoSchedule"}],"expireAfter":"720h"}},
        "disruption":{"consolidationPolicy":"WhenEmptyOrUnderutilized","consolidateAfter":"30s",
          "budgets":[{"nodes":"10%%"}]}}}
      """;

  /** A dynamic NodePool (weight and limits) and a static one (replicas), as Karpenter allows. */
  /** NodePools are cluster-scoped: the ones a test made, deleted after it. */
  static final List<String[]> CREATED_POOLS = new java.util.concurrent.CopyOnWriteArrayList<>();

  @org.junit.jupiter.api.AfterEach
  void deletePools(RealCluster cluster) {
    deleteCreatedPools(cluster);
  }

  static void deleteCreatedPools(RealCluster cluster) {
    var api = api(cluster);
    for (String[] p : CREATED_POOLS) {
      api.send(admin(cluster), "DELETE", "/apis/karpenter.sh/v1/nodepools/" + p[0], null, null);
      CREATED_POOLS.remove(p);
    }
  }

  static List<String> nodePools(ApiCalls api, Caller admin, String ns) {
    String dynamic = ns + "-dynamic";
    String fixed = ns + "-static";
    CREATED_POOLS.add(new String[] {dynamic});
    CREATED_POOLS.add(new String[] {fixed});
    create(
        api,
        admin,
        "/apis/karpenter.sh/v1/nodepools",
        POOL.formatted(
            dynamic, "\"weight\":10,\"limits\":{\"nvidia.com/gpu\":64,\"cpu\":\"1000\"},"));
    create(
        api,
        admin,
        "/apis/karpenter.sh/v1/nodepools",
        POOL.formatted(fixed, "\"replicas\":2,\"limits\":{\"nodes\":5},"));
    return List.of(dynamic, fixed);
  }

  static void workloads(ApiCalls api, Caller admin, String ns) {
    create(
        api,
        admin,
        "/apis/apps/v1/namespaces/" + ns + "/deployments",
        """
        {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
         "spec":{"replicas":0,"selector":{"matchLabels":{"app":"web"}},
          "template":{"metadata":{"labels":{"app":"web"}},
           "spec":{"containers":[{"name":"c","image":"registry.example/web:1"}]}}}}
        """);
    create(
        api,
        admin,
        "/apis/autoscaling/v2/namespaces/" + ns + "/horizontalpodautoscalers",
        """
        {"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler",
         "metadata":{"name":"web","labels":{"app":"web"}},
         "spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},
          "minReplicas":2,"maxReplicas":5,
          "metrics":[{"type":"Resource","resource":{"name":"cpu",
            "target":{"type":"Utilization","averageUtilization":60}}}]}}
        """);
    create(
        api,
        admin,
        "/apis/keda.sh/v1alpha1/namespaces/" + ns + "/scaledobjects",
        """
        {"apiVersion":"keda.sh/v1alpha1","kind":"ScaledObject",
         "metadata":{"name":"web","labels":{"app":"web"}},
         "spec":{"scaleTargetRef":{"name":"web"},"minReplicaCount":1,"maxReplicaCount":5,
          "triggers":[{"type":"cpu","metricType":"Utilization","metadata":{"value":"60"}}]}}
        """);
    create(
        api,
        admin,
        "/api/v1/namespaces/" + ns + "/configmaps",
        """
        {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"gpufleet-schedule"},
         "data":{"Deployment.web":"{}"}}
        """);
  }

  /** What `gpufleet budgets rbac` binds for a policy naming {@code ns}. */
  static void bindWriter(ApiCalls api, Caller admin, String ns, String group) {
    create(
        api,
        admin,
        "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/rolebindings",
        """
        {"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",
         "metadata":{"name":"gpufleet-disruption-schedule-writer-%s"},
         "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole",
                    "name":"gpufleet-disruption-schedule-writer"},
         "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"%s"}]}
        """
            .formatted(group, group));
  }

  static List<Target> scheduleTargets(Map<String, Policy> p, List<String> pools, String ns) {
    var out = new ArrayList<Target>();
    for (String pool : pools) {
      out.add(
          new Target(
              "NodePool " + pool,
              "/apis/karpenter.sh/v1/nodepools/" + pool,
              "/openapi/v3/apis/karpenter.sh/v1",
              "sh.karpenter.v1.NodePool",
              p.get("gpufleet-disruption-schedule-nodepool-fields"),
              true));
    }
    out.add(
        new Target(
            "HorizontalPodAutoscaler web",
            "/apis/autoscaling/v2/namespaces/" + ns + "/horizontalpodautoscalers/web",
            "/openapi/v3/apis/autoscaling/v2",
            "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler",
            p.get("gpufleet-disruption-schedule-hpa-fields"),
            true));
    out.add(
        new Target(
            "ScaledObject web",
            "/apis/keda.sh/v1alpha1/namespaces/" + ns + "/scaledobjects/web",
            "/openapi/v3/apis/keda.sh/v1alpha1",
            "sh.keda.v1alpha1.ScaledObject",
            p.get("gpufleet-disruption-schedule-scaledobject-fields"),
            true));
    out.add(
        new Target(
            "ConfigMap gpufleet-schedule",
            "/api/v1/namespaces/" + ns + "/configmaps/gpufleet-schedule",
            "/openapi/v3/api/v1",
            "io.k8s.api.core.v1.ConfigMap",
            p.get("gpufleet-disruption-schedule-configmap-fields"),
            false));
    return out;
  }

  static String summary(String identity, List<Outcome> outcomes, int extra) {
    int attempted = outcomes.stream().mapToInt(Outcome::attempted).sum() + extra;
    var sb = new StringBuilder();
    sb.append(identity).append(": ").append(attempted).append(" attempted writes (");
    for (Outcome o : outcomes) {
      sb.append(o.label())
          .append(' ')
          .append(o.attempted())
          .append(" fields, ")
          .append(o.owned().size())
          .append(" owned, ")
          .append(o.unreachable().size())
          .append(" the API server refuses to anyone; ");
    }
    sb.append(extra).append(" taints, deletions, subresources and other kinds)");
    return sb.toString();
  }

  static void report(String line, List<Outcome> outcomes) throws IOException {
    System.out.println("confinement attack: " + line);
    Files.createDirectories(REPORT.getParent());
    var text = new StringBuilder(line).append('\n');
    for (Outcome o : outcomes) {
      text.append("  ").append(o.label()).append('\n');
      o.refused().forEach(r -> text.append("    refused ").append(r).append('\n'));
      o.unreachable().forEach(r -> text.append("    unreachable ").append(r).append('\n'));
      o.owned().forEach(r -> text.append("    owned ").append(r).append('\n'));
    }
    Files.writeString(
        REPORT,
        text.toString(),
        java.nio.file.StandardOpenOption.CREATE,
        java.nio.file.StandardOpenOption.APPEND);
  }

  /** Writes (method, path, body) as {@code who}, dry-run; the ones that were admitted. */
  static List<String> admittedOf(ApiCalls api, Caller who, List<String[]> writes) {
    var admitted = new ArrayList<String>();
    for (String[] w : writes) {
      String sep = w[1].contains("?") ? "&" : "?";
      String type = w.length > 3 ? w[3] : "application/merge-patch+json";
      Response r =
          api.send(
              who,
              w[0],
              w[1] + sep + "dryRun=All",
              w[0].equals("POST") || w[0].equals("PUT") ? "application/json" : type,
              w.length > 2 ? w[2] : null);
      if (r.ok()) {
        admitted.add(w[0] + " " + w[1] + " " + (w.length > 2 ? w[2] : ""));
      }
    }
    return admitted;
  }

  /** Deletions, subresources and other kinds no function may write, for every identity. */
  static List<String[]> otherWrites(String ns, List<String> pools, String node) {
    String pool = pools.getFirst();
    var w = new ArrayList<String[]>();
    w.add(new String[] {"DELETE", "/api/v1/nodes/" + node});
    w.add(
        new String[] {
          "PATCH",
          "/api/v1/nodes/" + node + "/status",
          "{\"status\":{\"capacity\":{\"nvidia.com/gpu\":\"64\"}}}"
        });
    w.add(
        new String[] {
          "POST",
          "/api/v1/nodes",
          "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"" + ns + "-forged\"}}"
        });
    w.add(new String[] {"DELETE", "/apis/karpenter.sh/v1/nodepools/" + pool});
    w.add(
        new String[] {
          "PATCH",
          "/apis/karpenter.sh/v1/nodepools/" + pools.get(1) + "/scale",
          "{\"spec\":{\"replicas\":50}}"
        });
    w.add(
        new String[] {
          "PATCH",
          "/apis/karpenter.sh/v1/nodepools/" + pool + "/status",
          "{\"status\":{\"nodes\":7}}"
        });
    w.add(
        new String[] {
          "POST", "/apis/karpenter.sh/v1/nodepools", POOL.formatted(ns + "-forged", "")
        });
    w.add(
        new String[] {
          "DELETE", "/apis/autoscaling/v2/namespaces/" + ns + "/horizontalpodautoscalers/web"
        });
    w.add(
        new String[] {"DELETE", "/apis/keda.sh/v1alpha1/namespaces/" + ns + "/scaledobjects/web"});
    w.add(new String[] {"DELETE", "/api/v1/namespaces/" + ns + "/configmaps/gpufleet-schedule"});
    w.add(
        new String[] {
          "POST",
          "/api/v1/namespaces/" + ns + "/configmaps",
          "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"other\"}}"
        });
    w.add(
        new String[] {
          "PATCH",
          "/apis/apps/v1/namespaces/" + ns + "/deployments/web",
          "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"evil.example/x:1\"}]}}}}"
        });
    w.add(new String[] {"DELETE", "/apis/apps/v1/namespaces/" + ns + "/deployments/web"});
    w.add(
        new String[] {
          "POST",
          "/api/v1/namespaces/" + ns + "/pods",
          "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"evil.example/x:1\"}]}}"
        });
    w.add(
        new String[] {
          "POST",
          "/api/v1/namespaces/" + ns + "/secrets",
          "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"x\"}}"
        });
    w.add(new String[] {"DELETE", "/api/v1/namespaces/" + ns});
    w.add(
        new String[] {
          "POST",
          "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
          "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"ClusterRoleBinding\",\"metadata\":{\"name\":\""
              + ns
              + "-escalate\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":\"cluster-admin\"},\"subjects\":[{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"Group\",\"name\":\"system:authenticated\"}]}"
        });
    w.add(
        new String[] {
          "PATCH",
          "/apis/rbac.authorization.k8s.io/v1/clusterroles/gpufleet-disruption-schedule-writer",
          "{\"rules\":[{\"apiGroups\":[\"*\"],\"resources\":[\"*\"],\"verbs\":[\"*\"]}]}"
        });
    for (String policy :
        List.of(
            "gpufleet-interruption-drain-node-fields",
            "gpufleet-disruption-schedule-nodepool-fields")) {
      w.add(
          new String[] {
            "DELETE",
            "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/" + policy
          });
      w.add(
          new String[] {
            "PATCH",
            "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/" + policy,
            "{\"spec\":{\"validations\":[{\"expression\":\"true\"}]}}"
          });
    }
    return w;
  }

  /** Each policy's kind: where the API server publishes its schema, and its name there. */
  static final Map<String, String[]> SCHEMAS =
      Map.of(
          "gpufleet-interruption-drain-node-fields",
              new String[] {"/openapi/v3/api/v1", "io.k8s.api.core.v1.Node"},
          "gpufleet-interruption-drain-pod-fields",
              new String[] {"/openapi/v3/api/v1", "io.k8s.api.core.v1.Pod"},
          "gpufleet-disruption-schedule-nodepool-fields",
              new String[] {"/openapi/v3/apis/karpenter.sh/v1", "sh.karpenter.v1.NodePool"},
          "gpufleet-disruption-schedule-hpa-fields",
              new String[] {
                "/openapi/v3/apis/autoscaling/v2",
                "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler"
              },
          "gpufleet-disruption-schedule-scaledobject-fields",
              new String[] {"/openapi/v3/apis/keda.sh/v1alpha1", "sh.keda.v1alpha1.ScaledObject"},
          "gpufleet-disruption-schedule-configmap-fields",
              new String[] {"/openapi/v3/api/v1", "io.k8s.api.core.v1.ConfigMap"});

  @Test
  void shouldNameEveryPropertyOfThePublishedSchemaAtEachLevelOfEveryConfinementSpec(
      RealCluster cluster) {
    // Given every generated policy's field tree and the schemas the API server publishes (with
    // Karpenter's and KEDA's CRDs installed)
    var api = api(cluster);
    var attack = new ConfinementAttack(api, admin(cluster));
    var gaps = new ArrayList<String>();
    for (var e : policies(Map.of()).entrySet()) {
      if (e.getValue().fields() == null) {
        continue;
      }
      String[] where = SCHEMAS.get(e.getKey());
      assertThat(where).as("schema of " + e.getKey()).isNotNull();
      var walk =
          attack.schemaOf(new Target(e.getKey(), null, where[0], where[1], e.getValue(), false));
      // Then every level lists exactly the schema's properties (own, compare or a rule each), so a
      // field a new release adds fails here until the spec says what it is
      levels(
          e.getValue().fields(),
          "",
          (path, named) -> {
            var published = new java.util.TreeSet<>(walk.properties(where[1], path));
            if (path.isEmpty()) {
              published.removeAll(List.of("apiVersion", "kind", "metadata"));
            }
            if (!published.equals(new java.util.TreeSet<>(named))) {
              gaps.add(
                  e.getKey()
                      + " "
                      + (path.isEmpty() ? "(root)" : path)
                      + ": spec names "
                      + new java.util.TreeSet<>(named)
                      + ", schema has "
                      + published);
            }
          });
    }
    assertThat(gaps)
        .as("levels of deploy/confinement/*.yaml that differ from the schema")
        .isEmpty();
  }

  static void levels(
      JsonNode level, String path, java.util.function.BiConsumer<String, List<String>> visit) {
    var named = new ArrayList<String>();
    level.fieldNames().forEachRemaining(named::add);
    visit.accept(path, named);
    level
        .properties()
        .forEach(
            e -> {
              if (e.getValue().isObject() && !e.getValue().path("rule").isTextual()) {
                levels(e.getValue(), path.isEmpty() ? e.getKey() : path + "." + e.getKey(), visit);
              }
            });
  }

  /**
   * The audit log's view of the attack: every dry-run write {@code identity} sent since {@code
   * since}, and those the API server allowed (must be none: the attack writes only with dryRun).
   */
  static void assertAuditShowsNoAllowedAttack(
      RealCluster cluster, FunctionIdentity identity, java.time.Instant since, int attempted) {
    var writes =
        cluster.auditEvents().stream()
            .filter(e -> e.user().equals(identity.username()))
            .filter(e -> !e.at().isBefore(since))
            .filter(e -> List.of("create", "update", "patch", "delete").contains(e.verb()))
            .filter(e -> e.uri().contains("dryRun=All"))
            .toList();
    assertThat(writes.size())
        .as("the audit log records every attempted write of " + identity.function())
        .isGreaterThanOrEqualTo(attempted);
    assertThat(writes)
        .as("writes of " + identity.function() + " the audit log shows as allowed")
        .noneMatch(e -> e.code() / 100 == 2);
  }

  @Test
  void shouldRefuseTheDrainEveryWriteOutsideItsSpecAndAllowItsOwn(
      RealCluster cluster, RealNamespace ns) throws IOException {
    // Given a node an administrator tainted, and another it cordoned (a faulty GPU)
    var started = java.time.Instant.now().minusSeconds(1);
    var api = api(cluster);
    var admin = admin(cluster);
    var drain = as(cluster, FunctionIdentity.INTERRUPTION_DRAIN);
    var policy = policies(Map.of()).get("gpufleet-interruption-drain-node-fields");
    String node =
        ns.createNode(
                KwokNodes.Spec.karpenter(
                    "attack",
                    "i-0a77ac0000000a001",
                    "us-east-1a",
                    "g6e.12xlarge",
                    "spot",
                    "gpu-inference",
                    4))
            .getMetadata()
            .getName();
    String fenced =
        ns.createNode(
                KwokNodes.Spec.karpenter(
                    "fenced",
                    "i-0a77ac0000000a002",
                    "us-east-1a",
                    "g6e.12xlarge",
                    "spot",
                    "gpu-inference",
                    4))
            .getMetadata()
            .getName();
    assertThat(
            api.mergePatch(
                    admin,
                    "/api/v1/nodes/" + node,
                    ApiCalls.read(
                        "{\"spec\":{\"taints\":[{\"key\":\"example.com/admin\",\"effect\":\"NoSchedule\"}]}}"),
                    false)
                .ok())
        .isTrue();
    assertThat(
            api.mergePatch(
                    admin,
                    "/api/v1/nodes/" + fenced,
                    ApiCalls.read("{\"spec\":{\"unschedulable\":true}}"),
                    false)
                .ok())
        .isTrue();
    workloads(api, admin, ns.name());
    var pools = nodePools(api, admin, ns.name());
    var attack = new ConfinementAttack(api, admin);

    // and a training pod that opted in to checkpointing, with an annotation of someone else
    create(
        api,
        admin,
        "/api/v1/namespaces/" + ns.name() + "/pods",
        """
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"trainer","labels":{"app":"trainer"},
          "annotations":{"gpufleet.io/checkpoint":"90s","example.com/owner":"ml"}},
         "spec":{"containers":[{"name":"c","image":"registry.example/train:1"}]}}
        """);
    String podPath = "/api/v1/namespaces/" + ns.name() + "/pods/trainer";

    // When the drain writes every field of the published Node schema it does not own
    var outcome =
        attack.fields(
            new Target(
                "Node " + node,
                "/api/v1/nodes/" + node,
                "/openapi/v3/api/v1",
                "io.k8s.api.core.v1.Node",
                policy,
                true),
            drain);
    // and every field of the published Pod schema it does not own
    var podOutcome =
        attack.fields(
            new Target(
                "Pod " + ns.name() + "/trainer",
                podPath,
                "/openapi/v3/api/v1",
                "io.k8s.api.core.v1.Pod",
                policies(Map.of()).get("gpufleet-interruption-drain-pod-fields"),
                true),
            drain);
    // and its taint with the other effects, a foreign taint, an uncordon of someone else's cordon,
    // deletion, subresources and other kinds
    String key = "gpufleet.io/interruption";
    var writes = new ArrayList<String[]>();
    for (String effect : List.of("NoExecute", "PreferNoSchedule")) {
      writes.add(
          new String[] {
            "PATCH",
            "/api/v1/nodes/" + node,
            "{\"spec\":{\"taints\":[{\"key\":\"example.com/admin\",\"effect\":\"NoSchedule\"},{\"key\":\""
                + key
                + "\",\"effect\":\""
                + effect
                + "\"}]}}"
          });
    }
    writes.add(
        new String[] {
          "PATCH",
          "/api/v1/nodes/" + node,
          "{\"spec\":{\"taints\":[{\"key\":\"example.com/admin\",\"effect\":\"NoSchedule\"},{\"key\":\"example.com/other\",\"effect\":\"NoSchedule\"}]}}"
        });
    writes.add(
        new String[] {
          "PATCH",
          "/api/v1/nodes/" + node,
          "{\"spec\":{\"taints\":[{\"key\":\"example.com/admin\",\"effect\":\"NoExecute\"}]}}"
        });
    writes.add(new String[] {"PATCH", "/api/v1/nodes/" + node, "{\"spec\":{\"taints\":null}}"});
    writes.add(
        new String[] {"PATCH", "/api/v1/nodes/" + fenced, "{\"spec\":{\"unschedulable\":false}}"});
    writes.add(
        new String[] {
          "PATCH",
          "/api/v1/nodes/" + fenced,
          "{\"metadata\":{\"annotations\":{\"gpufleet.io/drain\":\"{}\"}},\"spec\":{\"unschedulable\":false}}"
        });
    writes.addAll(otherWrites(ns.name(), pools, node));
    writes.add(new String[] {"PATCH", podPath, "{\"metadata\":{\"labels\":{\"app\":\"other\"}}}"});
    writes.add(
        new String[] {
          "PATCH", podPath, "{\"metadata\":{\"annotations\":{\"example.com/owner\":null}}}"
        });
    writes.add(
        new String[] {
          "PATCH", podPath, "{\"metadata\":{\"annotations\":{\"gpufleet.io/checkpoint\":\"1h\"}}}"
        });
    writes.add(new String[] {"DELETE", podPath});
    writes.add(
        new String[] {
          "PUT",
          "/apis/apps/v1/namespaces/" + ns.name() + "/deployments/web/scale",
          "{\"apiVersion\":\"autoscaling/v1\",\"kind\":\"Scale\",\"metadata\":{\"name\":\"web\",\"namespace\":\""
              + ns.name()
              + "\"},\"spec\":{\"replicas\":1}}"
        });
    writes.add(
        new String[] {
          "PATCH",
          "/apis/karpenter.sh/v1/nodepools/" + pools.getFirst(),
          "{\"spec\":{\"disruption\":{\"budgets\":[{\"nodes\":\"100%\"}]}}}"
        });
    var admittedExtra = admittedOf(api, drain, writes);

    // Then every one is refused, as the audit log shows too
    report(
        summary("interruption-drain", List.of(outcome, podOutcome), writes.size()),
        List.of(outcome, podOutcome));
    assertAuditShowsNoAllowedAttack(
        cluster,
        FunctionIdentity.INTERRUPTION_DRAIN,
        started,
        outcome.attempted() + podOutcome.attempted() + writes.size());
    assertThat(outcome.admitted()).as("fields the drain could change").isEmpty();
    assertThat(podOutcome.admitted()).as("pod fields the drain could change").isEmpty();
    assertThat(podOutcome.attempted()).as("attacked Pod fields").isGreaterThan(10);
    assertThat(admittedExtra).as("other writes the drain could make").isEmpty();
    assertThat(outcome.attempted()).as("attacked Node fields").isGreaterThan(40);
    assertThat(outcome.refused()).anyMatch(r -> r.startsWith("metadata.ownerReferences"));
    assertThat(outcome.refused()).anyMatch(r -> r.startsWith("metadata.finalizers"));

    // and its own writes succeed: claim, taint with its effect, cordon, LB label in one patch; then
    // uncordon together with removing its marker
    var claim =
        api.mergePatch(
            drain,
            "/api/v1/nodes/" + node,
            ApiCalls.read(
                "{\"metadata\":{\"labels\":{\"node.kubernetes.io/exclude-from-external-load-balancers\":\"true\"},\"annotations\":{\"gpufleet.io/drain\":\"{}\"}},"
                    + "\"spec\":{\"unschedulable\":true,\"taints\":[{\"key\":\"example.com/admin\",\"effect\":\"NoSchedule\"},{\"key\":\""
                    + key
                    + "\",\"value\":\"spot\",\"effect\":\"NoSchedule\"}]}}"),
            false);
    assertThat(claim.ok()).as(claim.body()).isTrue();
    var release =
        api.mergePatch(
            drain,
            "/api/v1/nodes/" + node,
            ApiCalls.read(
                "{\"metadata\":{\"annotations\":{\"gpufleet.io/drain\":null}},\"spec\":{\"unschedulable\":false}}"),
            false);
    assertThat(release.ok()).as(release.body()).isTrue();
    // and it may tell the pod of an interruption, and clear an earlier checkpoint report
    var tell =
        api.mergePatch(
            drain,
            podPath,
            ApiCalls.read(
                "{\"metadata\":{\"annotations\":{\"gpufleet.io/interruption-kind\":\"spot-interruption\","
                    + "\"gpufleet.io/interruption-deadline\":\"2026-12-02T10:00:00Z\",\"gpufleet.io/checkpoint-done\":null}}}"),
            false);
    assertThat(tell.ok()).as(tell.body()).isTrue();
  }

  @Test
  void shouldRefuseTheScheduleEveryWriteOutsideItsSpecAndAllowItsOwn(
      RealCluster cluster, RealNamespace ns) throws IOException {
    // Given NodePools (dynamic and static), an HPA, a ScaledObject and the replica memory, in a
    // namespace whose writes the schedule was granted (as `gpufleet budgets rbac` binds them)
    var started = java.time.Instant.now().minusSeconds(1);
    var api = api(cluster);
    var admin = admin(cluster);
    var schedule = as(cluster, FunctionIdentity.DISRUPTION_SCHEDULE);
    workloads(api, admin, ns.name());
    bindWriter(api, admin, ns.name(), "gpufleet-schedule");
    var pools = nodePools(api, admin, ns.name());
    String node =
        ns.createNode(
                KwokNodes.Spec.karpenter(
                    "sched",
                    "i-0a77ac0000000b001",
                    "us-east-1a",
                    "g6e.12xlarge",
                    "spot",
                    "gpu-inference",
                    4))
            .getMetadata()
            .getName();
    var attack = new ConfinementAttack(api, admin);

    // When the schedule writes every field of their published schemas it does not own, and
    // deletions, subresources and other kinds
    var outcomes = new ArrayList<Outcome>();
    for (Target t : scheduleTargets(policies(Map.of()), pools, ns.name())) {
      outcomes.add(attack.fields(t, schedule));
    }
    var writes = otherWrites(ns.name(), pools, node);
    writes.add(
        new String[] {"PATCH", "/api/v1/nodes/" + node, "{\"spec\":{\"unschedulable\":true}}"});
    var admittedExtra = admittedOf(api, schedule, writes);

    // Then every one is refused, as the audit log shows too
    report(summary("disruption-schedule", outcomes, writes.size()), outcomes);
    assertAuditShowsNoAllowedAttack(
        cluster,
        FunctionIdentity.DISRUPTION_SCHEDULE,
        started,
        outcomes.stream().mapToInt(Outcome::attempted).sum() + writes.size());
    for (Outcome o : outcomes) {
      assertThat(o.admitted()).as("fields the schedule could change in " + o.label()).isEmpty();
      assertThat(o.refused()).as(o.label()).anyMatch(r -> r.startsWith("metadata.ownerReferences"));
      assertThat(o.refused()).as(o.label()).anyMatch(r -> r.startsWith("metadata.finalizers"));
    }
    assertThat(admittedExtra).as("other writes the schedule could make").isEmpty();
    assertThat(outcomes.getFirst().refused()).anyMatch(r -> r.startsWith("spec.template"));
    assertThat(outcomes.get(1).refused())
        .as("the static pool's replicas")
        .anyMatch(r -> r.startsWith("spec.replicas"));

    // and its own writes succeed against the published CRDs: night budgets that pass Karpenter's
    // CEL rules, minReplicas, KEDA's paused-replicas, its replica memory
    String pool = "/apis/karpenter.sh/v1/nodepools/" + pools.getFirst();
    var budgets =
        api.mergePatch(
            schedule,
            pool,
            ApiCalls.read(
                "{\"metadata\":{\"annotations\":{\"gpufleet.io/original\":\"{}\",\"gpufleet.io/applied\":\"{}\"}},"
                    + "\"spec\":{\"disruption\":{\"consolidateAfter\":\"Never\",\"budgets\":[{\"nodes\":\"0\"},"
                    + "{\"nodes\":\"1\",\"schedule\":\"0 9 * * mon-fri\",\"duration\":\"8h\",\"reasons\":[\"Underutilized\"]}]}}}"),
            false);
    assertThat(budgets.ok()).as(budgets.body()).isTrue();
    // (Karpenter's CEL rules are in force: a schedule without a duration is refused to anyone)
    var invalid =
        api.mergePatch(
            admin,
            pool,
            ApiCalls.read(
                "{\"spec\":{\"disruption\":{\"budgets\":[{\"nodes\":\"0\",\"schedule\":\"@daily\"}]}}}"),
            true);
    assertThat(invalid.code()).as(invalid.body()).isEqualTo(422);
    String nsPath = "/namespaces/" + ns.name();
    assertThat(
            api.mergePatch(
                    schedule,
                    "/apis/autoscaling/v2" + nsPath + "/horizontalpodautoscalers/web",
                    ApiCalls.read("{\"spec\":{\"minReplicas\":1}}"),
                    false)
                .ok())
        .isTrue();
    assertThat(
            api.mergePatch(
                    schedule,
                    "/apis/keda.sh/v1alpha1" + nsPath + "/scaledobjects/web",
                    ApiCalls.read(
                        "{\"metadata\":{\"annotations\":{\"autoscaling.keda.sh/paused-replicas\":\"0\"}}}"),
                    false)
                .ok())
        .isTrue();
    assertThat(
            api.mergePatch(
                    schedule,
                    "/api/v1" + nsPath + "/configmaps/gpufleet-schedule",
                    ApiCalls.read("{\"data\":{\"Deployment.web\":\"{\\\"original\\\":2}\"}}"),
                    false)
                .ok())
        .isTrue();
    var scale =
        api.send(
            schedule,
            "PUT",
            "/apis/apps/v1" + nsPath + "/deployments/web/scale",
            "application/json",
            "{\"apiVersion\":\"autoscaling/v1\",\"kind\":\"Scale\",\"metadata\":{\"name\":\"web\",\"namespace\":\""
                + ns.name()
                + "\"},\"spec\":{\"replicas\":1}}");
    assertThat(scale.ok()).as(scale.body()).isTrue();
  }
}
