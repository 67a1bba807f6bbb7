package io.gpufleet.cost;

import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.Utilisation;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What each pod ("namespace/pod") and each namespace was charged and requested in GPU-hours over
 * the window, summed over the nodes they ran on: {@link TokenCosts} puts output tokens on it.
 */
final class PodLedger {
  private final Map<String, BigDecimal> podCost = new HashMap<>();
  private final Map<String, BigDecimal> nsGpuPodCost = new HashMap<>();
  // a namespace's pod-less token series go to its GPU pods in proportion (TokenCosts.perPod)
  private final Map<String, Double> podGpuHours = new HashMap<>();
  private final Map<String, Double> nsGpuHours = new HashMap<>();

  /** Pod {@code key} in {@code namespace} was charged {@code cost} for {@code gpuHours}. */
  void add(String key, String namespace, BigDecimal cost, double gpuHours) {
    podCost.merge(key, cost, BigDecimal::add);
    nsGpuPodCost.merge(namespace, gpuHours > 0 ? cost : BigDecimal.ZERO, BigDecimal::add);
    podGpuHours.merge(key, gpuHours, Double::sum);
    nsGpuHours.merge(namespace, gpuHours, Double::sum);
  }

  /** Cost per million output tokens per (model, namespace). */
  List<CostReport.TokenCost> tokenCosts(Utilisation util) {
    return TokenCosts.of(util.tokens(), podCost, nsGpuPodCost, nsGpuHours);
  }

  /** The output tokens each pod carries, for the FOCUS rows. */
  Map<String, CostReport.PodTokens> podTokens(Utilisation util) {
    return TokenCosts.perPod(util.tokens(), podCost, podGpuHours, nsGpuHours);
  }

  /** Output tokens with no allocation in the window to put them on. */
  double unallocated(Utilisation util) {
    return TokenCosts.unallocated(util.tokens(), podCost, nsGpuHours);
  }
}
