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
 */
final class TokenCosts {
  private TokenCosts() {}

  static List<CostReport.TokenCost> of(
      List<Utilisation.Tokens> tokens,
      Map<String, BigDecimal> podCost,
      Map<String, BigDecimal> namespaceGpuCost) {
    var podTokens = new HashMap<String, Double>();
    var nsTokens = new HashMap<String, Double>();
    for (var t : tokens) {
      if (t.output() <= 0) {
        continue;
      }
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
