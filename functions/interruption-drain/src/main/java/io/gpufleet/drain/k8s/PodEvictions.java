package io.gpufleet.drain.k8s;

import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PreconditionsBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpufleet.core.k8s.LabelSelectors;
import io.gpufleet.drain.DrainClusterPort.BudgetInfo;
import io.gpufleet.drain.model.EvictionResult;
import io.gpufleet.drain.model.PodInfo;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Pods: the node's pods listed, each evicted through the Eviction API (guarded by its uid, within
 * the in-flight limit) with the API server's answer read into an {@link EvictionResult},
 * force-deleted at the deadline, and the PodDisruptionBudgets that guard them.
 */
final class PodEvictions {
  private final KubernetesClient client;
  private final KubeCalls calls;

  PodEvictions(KubernetesClient client, KubeCalls calls) {
    this.client = client;
    this.calls = calls;
  }

  List<PodInfo> podsOnNode(String nodeName) {
    var list =
        calls.read(
            "list pods on " + nodeName,
            () ->
                client
                    .genericKubernetesResources(KubeResources.PODS)
                    .inAnyNamespace()
                    .withField("spec.nodeName", nodeName)
                    .list());
    return list.getItems().stream().map(KubeResources::toPod).toList();
  }

  EvictionResult evict(PodInfo pod, long gracePeriodSeconds) {
    var eviction =
        new EvictionBuilder()
            .withNewMetadata()
            .withName(pod.name())
            .withNamespace(pod.namespace())
            .endMetadata()
            .withDeleteOptions(
                new DeleteOptionsBuilder()
                    .withGracePeriodSeconds(gracePeriodSeconds)
                    .withPreconditions(new PreconditionsBuilder().withUid(pod.uid()).build())
                    .build())
            .build();
    try {
      boolean accepted =
          calls.limited(
              () ->
                  client.pods().inNamespace(pod.namespace()).withName(pod.name()).evict(eviction));
      return accepted
          ? new EvictionResult.Evicted()
          : new EvictionResult.Blocked("the PodDisruptionBudget allows no disruption now");
    } catch (KubernetesClientException e) {
      int code = e.getCode();
      String message =
          e.getStatus() != null && e.getStatus().getMessage() != null
              ? e.getStatus().getMessage()
              : String.valueOf(e.getMessage());
      if (code == 404) {
        return new EvictionResult.Gone();
      }
      if (code == 409 && message.contains("UID")) {
        // precondition failed: a new pod took the name (StatefulSet); ours is gone
        return new EvictionResult.Gone();
      }
      if (code == 429) {
        return new EvictionResult.Blocked(message);
      }
      if (code == 500 && message.contains("more than one PodDisruptionBudget")) {
        return new EvictionResult.MultiplePdb(message);
      }
      if (code <= 0) {
        // no HTTP answer: transport failure (connection reset, timeout, stream refused)
        return new EvictionResult.Failed(
            code, "no answer from the API server: " + KubeCalls.rootCause(e), true);
      }
      return new EvictionResult.Failed(code, message, code >= 500 || code == 409);
    }
  }

  boolean forceDelete(PodInfo pod) {
    try {
      var deleted =
          client
              .pods()
              .inNamespace(pod.namespace())
              .withName(pod.name())
              .withGracePeriod(0)
              .delete();
      return !deleted.isEmpty();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return false;
      }
      throw KubeCalls.unavailable("force-delete " + pod.key(), e);
    }
  }

  Map<String, List<BudgetInfo>> budgetsFor(List<PodInfo> pods) {
    var byNamespace = new HashMap<String, List<PodDisruptionBudget>>();
    var out = new LinkedHashMap<String, List<BudgetInfo>>();
    for (PodInfo pod : pods) {
      var pdbs =
          byNamespace.computeIfAbsent(
              pod.namespace(),
              ns ->
                  calls
                      .read(
                          "list PodDisruptionBudgets in " + ns,
                          () -> client.policy().v1().podDisruptionBudget().inNamespace(ns).list())
                      .getItems());
      var matching =
          pdbs.stream()
              .filter(p -> LabelSelectors.matches(p.getSpec().getSelector(), pod.labels()))
              .map(PodEvictions::toBudget)
              .toList();
      if (!matching.isEmpty()) {
        out.put(pod.key(), matching);
      }
    }
    return out;
  }

  private static BudgetInfo toBudget(PodDisruptionBudget pdb) {
    String rule =
        pdb.getSpec().getMinAvailable() != null
            ? "minAvailable=" + text(pdb.getSpec().getMinAvailable())
            : "maxUnavailable=" + text(pdb.getSpec().getMaxUnavailable());
    var s = pdb.getStatus();
    return new BudgetInfo(
        pdb.getMetadata().getNamespace(),
        pdb.getMetadata().getName(),
        rule,
        s == null ? null : s.getCurrentHealthy(),
        s == null ? null : s.getDesiredHealthy(),
        s == null ? null : s.getDisruptionsAllowed());
  }

  private static String text(IntOrString v) {
    return v == null ? "?" : v.getIntVal() != null ? v.getIntVal().toString() : v.getStrVal();
  }
}
