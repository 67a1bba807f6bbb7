package io.gpufleet.cost;

import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.Utilisation;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Pure: cost per million output tokens per (model, namespace). A pod's allocated cost goes to the
 * models it served in proportion to their tokens; tokens that carry no pod (TGI without pod labels,
 * a namespace-level series) take the GPU pods' cost of their namespace, split by tokens among the
 * models seen there without a pod.
 *
 * <p>Only tokens the report can put on an allocation count: a pod's tokens when the pod has an
 * allocation in the window, a namespace's when it has GPU pods in the window. Tokens of anything
 * else (a series whose pod the report does not know) would price tokens at nothing; {@link
 * #unallocated} counts them for the report's notes. The same tokens are carried on the FOCUS rows
 * ({@link #perPod}), so the rows' cost per million tokens is the report's.
 */
final class TokenCosts {
  private TokenCosts() {}

  static boolean allocated(
      Utilisation.Tokens t, Map<String, BigDecimal> podCost, Map<String, Double> nsGpuHours) {
    if (t.output() <= 0) {
      return false;
    }
    return t.pod() != null
        ? podCost.containsKey(t.namespace() + "/" + t.pod())
        : nsGpuHours.getOrDefault(t.namespace(), 0.0) > 0;
  }

  /** Output tokens of series the report has no allocation for (not priced). */
  static double unallocated(
      List<Utilisation.Tokens> tokens,
      Map<String, BigDecimal> podCost,
      Map<String, Double> nsGpuHours) {
    double n = 0;
    for (var t : tokens) {
      if (t.output() > 0 && !allocated(t, podCost, nsGpuHours)) {
        n += t.output();
      }
    }
    return n;
  }

  /**
   * The tokens each pod carries: its own series, plus its share of its namespace's pod-less series
   * by the GPU-hours it requested ({@code podGpuHours}, "namespace/pod"; the namespace totals are
   * {@code nsGpuHours}). Models are named in order, joined by "+".
   */
  static Map<String, CostReport.PodTokens> perPod(
      List<Utilisation.Tokens> tokens,
      Map<String, BigDecimal> podCost,
      Map<String, Double> podGpuHours,
      Map<String, Double> nsGpuHours) {
    // the GPU pods of each namespace ("namespace/pod" -> requested GPU-hours), for pod-less series
    var byNamespace = new HashMap<String, List<Map.Entry<String, Double>>>();
    for (var e : podGpuHours.entrySet()) {
      if (e.getValue() > 0) {
        String ns = e.getKey().substring(0, e.getKey().indexOf('/'));
        byNamespace.computeIfAbsent(ns, k -> new ArrayList<>()).add(e);
      }
    }
    var output = new java.util.TreeMap<String, Double>();
    var models = new HashMap<String, java.util.TreeSet<String>>();
    for (var t : tokens) {
      if (!allocated(t, podCost, nsGpuHours)) {
        continue;
      }
      String model = t.model() == null ? "(unknown model)" : t.model();
      if (t.pod() != null) {
        String pod = t.namespace() + "/" + t.pod();
        output.merge(pod, t.output(), Double::sum);
        models.computeIfAbsent(pod, k -> new java.util.TreeSet<>()).add(model);
        continue;
      }
      double total = nsGpuHours.get(t.namespace());
      for (var e : byNamespace.get(t.namespace())) {
        output.merge(e.getKey(), t.output() * e.getValue() / total, Double::sum);
        models.computeIfAbsent(e.getKey(), k -> new java.util.TreeSet<>()).add(model);
      }
    }
    var out = new LinkedHashMap<String, CostReport.PodTokens>();
    output.forEach(
        (pod, n) -> out.put(pod, new CostReport.PodTokens(n, String.join("+", models.get(pod)))));
    return out;
  }

  static List<CostReport.TokenCost> of(
      List<Utilisation.Tokens> all,
      Map<String, BigDecimal> podCost,
      Map<String, BigDecimal> namespaceGpuCost,
      Map<String, Double> nsGpuHours) {
    var tokens = all.stream().filter(t -> allocated(t, podCost, nsGpuHours)).toList();
    var podTokens = new HashMap<String, Double>();
    var nsTokens = new HashMap<String, Double>();
    for (var t : tokens) {
      if (t.pod() != null) {
        podTokens.merge(t.namespace() + "/" + t.pod(), t.output(), Double::sum);
      } else {
        nsTokens.merge(t.namespace(), t.output(), Double::sum);
      }
    }
    record Key(String model, String namespace, String server) {}
    var cost = new LinkedHashMap<Key, BigDecimal>();
    var count = new LinkedHashMap<Key, Double>();
    var how = new HashMap<Key, String>();
    for (var t : tokens) {
      if (t.output() <= 0) {
        continue;
      }
      var k = new Key(t.model() == null ? "(unknown model)" : t.model(), t.namespace(), t.server());
      BigDecimal c;
      if (t.pod() != null) {
        String pod = t.namespace() + "/" + t.pod();
        c =
            podCost
                .getOrDefault(pod, BigDecimal.ZERO)
                .multiply(
                    BigDecimal.valueOf(t.output() / podTokens.get(pod)), MathContext.DECIMAL64);
        how.merge(k, "pod", (a, b) -> a.equals(b) ? a : "pod+namespace");
      } else {
        c =
            namespaceGpuCost
                .getOrDefault(t.namespace(), BigDecimal.ZERO)
                .multiply(
                    BigDecimal.valueOf(t.output() / nsTokens.get(t.namespace())),
                    MathContext.DECIMAL64);
        how.merge(k, "namespace", (a, b) -> a.equals(b) ? a : "pod+namespace");
      }
      cost.merge(k, c, BigDecimal::add);
      count.merge(k, t.output(), Double::sum);
    }
    var out = new ArrayList<CostReport.TokenCost>();
    cost.forEach(
        (k, c) -> {
          double n = count.get(k);
          out.add(
              new CostReport.TokenCost(
                  k.model(),
                  k.namespace(),
                  k.server(),
                  Math.rint(n),
                  c.setScale(2, RoundingMode.HALF_EVEN),
                  c.multiply(BigDecimal.valueOf(1_000_000), MathContext.DECIMAL64)
                      .divide(BigDecimal.valueOf(n), MathContext.DECIMAL64)
                      .setScale(4, RoundingMode.HALF_EVEN),
                  how.get(k)));
        });
    out.sort(Comparator.comparing(CostReport.TokenCost::cost).reversed());
    return out;
  }
}
