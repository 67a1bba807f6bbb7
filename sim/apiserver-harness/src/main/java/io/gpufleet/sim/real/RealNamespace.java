package io.gpufleet.sim.real;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.lambda.RestoreSafeRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One test's share of the shared {@link RealCluster}: a fresh namespace, and the nodes the test
 * creates, labelled {@link KwokNodes#SCOPE_LABEL}{@code =<namespace>}. Workloads made here select
 * those nodes, so tests never schedule onto each other's nodes. {@link #close()} deletes the nodes
 * and the namespace (the namespace controller removes what is in it).
 */
public final class RealNamespace implements AutoCloseable {
  /** How long helpers wait for controllers, the scheduler and kwok to act. */
  public static final Duration WAIT = Duration.ofSeconds(60);

  public static final String IMAGE = "registry.example/gpufleet/workload:1";

  private final RealCluster cluster;
  private final String name;
  private final List<String> nodes = new CopyOnWriteArrayList<>();

  private RealNamespace(RealCluster cluster, String name) {
    this.cluster = cluster;
    this.name = name;
  }

  /** Creates a namespace named after {@code hint} plus a random suffix. */
  public static RealNamespace create(RealCluster cluster, String hint) {
    String base = hint.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]+", "-");
    base = base.replaceAll("^-+|-+$", "");
    if (base.length() > 40) {
      base = base.substring(0, 40).replaceAll("-+$", "");
    }
    String name =
        (base.isEmpty() ? "test" : base)
            + "-"
            + Integer.toString(RestoreSafeRandom.nextInt(0, 36 * 36 * 36 * 36), 36);
    cluster
        .admin()
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
        .create();
    return new RealNamespace(cluster, name);
  }

  public String name() {
    return name;
  }

  public RealCluster cluster() {
    return cluster;
  }

  /**
   * The cluster's admin client, for setting a test up and checking what the function did (the
   * function itself uses {@link RealCluster#client()}, its own identity).
   */
  public KubernetesClient client() {
    return cluster.admin();
  }

  /** The node selector that keeps this test's pods on this test's nodes. */
  public Map<String, String> nodeSelector() {
    return Map.of(KwokNodes.SCOPE_LABEL, name);
  }

  /**
   * Creates a kwok GPU node scoped to this namespace (its name is prefixed with the namespace so
   * tests cannot collide) and waits until kwok reports it Ready.
   */
  public Node createNode(KwokNodes.Spec spec) {
    var scoped = spec.scopedTo(name);
    Node node = scoped.node();
    String nodeName = name + "-" + spec.name();
    node.getMetadata().setName(nodeName);
    node.getMetadata().getLabels().put("kubernetes.io/hostname", nodeName);
    client().nodes().resource(node).create();
    nodes.add(nodeName);
    RealCluster.await(
        "node " + nodeName + " Ready (kwok)",
        WAIT,
        () -> isReady(client().nodes().withName(nodeName).get()));
    return client().nodes().withName(nodeName).get();
  }

  /** The name {@link #createNode} gave the node of {@code specName}. */
  public String nodeName(String specName) {
    return name + "-" + specName;
  }

  /** Grace period of the pods made here: kwok deletes a terminating pod within it. */
  public static final long GRACE_SECONDS = 2;

  /**
   * A pod template for this test's nodes (no real container runs): kwok starts it and reports it
   * Ready at once, and deletes it at a random moment within its {@link #GRACE_SECONDS} once it is
   * marked for deletion. {@link #slowReadiness} makes pods slow to become Ready.
   */
  public PodTemplateSpec podTemplate(Map<String, String> labels, int gpus) {
    var template =
        new PodTemplateSpecBuilder()
            .withNewMetadata()
            .withLabels(labels)
            .withAnnotations(KwokNodes.podTiming(Duration.ZERO))
            .endMetadata()
            .withNewSpec()
            .withNodeSelector(nodeSelector())
            .withTerminationGracePeriodSeconds(GRACE_SECONDS)
            .addNewContainer()
            .withName("app")
            .withImage(IMAGE)
            .endContainer()
            .endSpec()
            .build();
    if (gpus > 0) {
      var gpu = Map.of("nvidia.com/gpu", new Quantity(Integer.toString(gpus)));
      template
          .getSpec()
          .getContainers()
          .get(0)
          .setResources(
              new io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder()
                  .withRequests(gpu)
                  .withLimits(gpu)
                  .build());
    }
    return template;
  }

  /**
   * Makes the pods the ReplicaSet creates from now on take {@code readyAfter} to become Ready
   * (existing pods are unchanged: a ReplicaSet does not roll its pods).
   */
  public void slowReadiness(String replicaSetName, Duration readyAfter) {
    client()
        .apps()
        .replicaSets()
        .inNamespace(name)
        .withName(replicaSetName)
        .edit(
            rs -> {
              rs.getSpec()
                  .getTemplate()
                  .getMetadata()
                  .getAnnotations()
                  .putAll(KwokNodes.podTiming(readyAfter));
              return rs;
            });
  }

  public ReplicaSet createReplicaSet(String rsName, int replicas, Map<String, String> labels) {
    return client()
        .apps()
        .replicaSets()
        .inNamespace(name)
        .resource(
            new ReplicaSetBuilder()
                .withNewMetadata()
                .withName(rsName)
                .withNamespace(name)
                .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                .withReplicas(replicas)
                .withNewSelector()
                .withMatchLabels(labels)
                .endSelector()
                .withTemplate(podTemplate(labels, 0))
                .endSpec()
                .build())
        .create();
  }

  public Deployment createDeployment(
      String deploymentName, int replicas, Map<String, String> labels, int gpusPerPod) {
    return client()
        .apps()
        .deployments()
        .inNamespace(name)
        .resource(
            new DeploymentBuilder()
                .withNewMetadata()
                .withName(deploymentName)
                .withNamespace(name)
                .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                .withReplicas(replicas)
                .withNewSelector()
                .withMatchLabels(labels)
                .endSelector()
                .withTemplate(podTemplate(labels, gpusPerPod))
                .endSpec()
                .build())
        .create();
  }

  /**
   * Creates a PodDisruptionBudget ({@code minAvailable} or {@code maxUnavailable}: a number or a
   * percentage; exactly one non-null) and waits until the disruption controller has computed its
   * status for this generation.
   */
  public PodDisruptionBudget createPdb(
      String pdbName, String minAvailable, String maxUnavailable, Map<String, String> selector) {
    if ((minAvailable == null) == (maxUnavailable == null)) {
      throw new IllegalArgumentException("give exactly one of minAvailable and maxUnavailable");
    }
    var spec =
        new PodDisruptionBudgetBuilder()
            .withNewMetadata()
            .withName(pdbName)
            .withNamespace(name)
            .endMetadata()
            .withNewSpec()
            .withNewSelector()
            .withMatchLabels(selector)
            .endSelector()
            .endSpec()
            .build();
    if (minAvailable != null) {
      spec.getSpec().setMinAvailable(intOrString(minAvailable));
    } else {
      spec.getSpec().setMaxUnavailable(intOrString(maxUnavailable));
    }
    client().policy().v1().podDisruptionBudget().inNamespace(name).resource(spec).create();
    return awaitPdb(pdbName, "observed by the disruption controller", pdb -> true);
  }

  /** Waits until the PDB's status is current and {@code condition} holds; returns it then. */
  public PodDisruptionBudget awaitPdb(
      String pdbName, String what, java.util.function.Predicate<PodDisruptionBudget> condition) {
    var found = new java.util.concurrent.atomic.AtomicReference<PodDisruptionBudget>();
    RealCluster.await(
        "PodDisruptionBudget " + name + "/" + pdbName + " " + what,
        WAIT,
        () -> {
          var pdb =
              client()
                  .policy()
                  .v1()
                  .podDisruptionBudget()
                  .inNamespace(name)
                  .withName(pdbName)
                  .get();
          boolean current =
              pdb != null
                  && pdb.getStatus() != null
                  && Objects.equals(
                      pdb.getStatus().getObservedGeneration(), pdb.getMetadata().getGeneration());
          if (current && condition.test(pdb)) {
            found.set(pdb);
            return true;
          }
          return false;
        });
    return found.get();
  }

  /** Pods of this namespace matching {@code labels} that are Ready, not being deleted. */
  public List<Pod> readyPods(Map<String, String> labels) {
    return client().pods().inNamespace(name).withLabels(labels).list().getItems().stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null && isReady(p))
        .toList();
  }

  /** Waits until exactly {@code count} matching pods are Ready and returns them. */
  public List<Pod> awaitReadyPods(Map<String, String> labels, int count) {
    var found = new java.util.concurrent.atomic.AtomicReference<List<Pod>>();
    RealCluster.await(
        count + " Ready pod(s) " + labels + " in " + name,
        WAIT,
        () -> {
          var ready = readyPods(labels);
          found.set(ready);
          return ready.size() == count;
        },
        () -> describePods(labels));
    return found.get();
  }

  /** One line per matching pod: name, phase, node, conditions (for timeout messages). */
  public String describePods(Map<String, String> labels) {
    var out = new StringBuilder();
    for (Pod p : client().pods().inNamespace(name).withLabels(labels).list().getItems()) {
      out.append("\n  ")
          .append(p.getMetadata().getName())
          .append(" node=")
          .append(p.getSpec().getNodeName())
          .append(" deleting=")
          .append(p.getMetadata().getDeletionTimestamp() != null);
      if (p.getStatus() != null) {
        out.append(" phase=").append(p.getStatus().getPhase());
        if (p.getStatus().getConditions() != null) {
          p.getStatus()
              .getConditions()
              .forEach(
                  c ->
                      out.append(' ')
                          .append(c.getType())
                          .append('=')
                          .append(c.getStatus())
                          .append(c.getMessage() == null ? "" : "(" + c.getMessage() + ")"));
        }
      }
    }
    return out.toString();
  }

  /** Pods (of any namespace) bound to {@code nodeName}, including terminating ones. */
  public List<Pod> podsOn(String nodeName) {
    return client().pods().inAnyNamespace().withField("spec.nodeName", nodeName).list().getItems();
  }

  public static boolean isReady(Node node) {
    return node != null
        && node.getStatus() != null
        && node.getStatus().getConditions() != null
        && node.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  public static boolean isReady(Pod pod) {
    return pod.getStatus() != null
        && pod.getStatus().getConditions() != null
        && pod.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static IntOrString intOrString(String value) {
    return value.endsWith("%") ? new IntOrString(value) : new IntOrString(Integer.parseInt(value));
  }

  /** Labels as a mutable ordered map (fabric8 builders keep references). */
  public static Map<String, String> labels(String... keyValues) {
    var out = new LinkedHashMap<String, String>();
    for (int i = 0; i + 1 < keyValues.length; i += 2) {
      out.put(keyValues[i], keyValues[i + 1]);
    }
    return out;
  }

  /** Deletes this test's nodes and namespace without waiting for them to be gone. */
  @Override
  public void close() {
    if (!cluster.healthy()) {
      return;
    }
    var failures = new ArrayList<RuntimeException>();
    for (String node : nodes) {
      try {
        client().nodes().withName(node).withGracePeriod(0).delete();
      } catch (RuntimeException e) {
        failures.add(e);
      }
    }
    try {
      client().namespaces().withName(name).delete();
    } catch (RuntimeException e) {
      failures.add(e);
    }
    if (!failures.isEmpty()) {
      var e = new IllegalStateException("cleaning up test namespace " + name + " failed");
      failures.forEach(e::addSuppressed);
      throw e;
    }
  }
}
