package io.gpufleet.cost.focus;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.gpufleet.core.catalog.InstanceCatalog;
import io.gpufleet.core.catalog.InstanceSpec;
import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.CostReport.NodeCost;
import io.gpufleet.cost.model.CostReport.Row;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;

/**
 * A report's allocation rows as FOCUS 1.2 rows (one per pod on a node and one per node's idle part,
 * the same rows as cost.csv). These are allocations of instance cost, not invoice lines:
 *
 * <ul>
 *   <li>EffectiveCost = the row's share of what the instance cost (Spot price, or the On-Demand
 *       rate with commitments applied); BilledCost = EffectiveCost (no upfront fees are amortised
 *       in these rows).
 *   <li>ListCost = the On-Demand equivalent (ListUnitPrice = the On-Demand hourly price), so Spot
 *       savings = ListCost − EffectiveCost over Dynamic rows; ContractedCost = ListCost (no
 *       negotiated prices are known), but EffectiveCost for Spot, whose contracted price is the
 *       Spot price.
 *   <li>PricingQuantity = the row's share of instance-hours (ListCost / ListUnitPrice), in Hours.
 *   <li>PricingCategory: Spot → Dynamic, Capacity Blocks → Other, else Standard (a Savings Plan or
 *       RI lowers EffectiveCost, but which commitment covered the instance is not known, and FOCUS
 *       requires a CommitmentDiscountId for Committed).
 *   <li>x_OutputTokens / x_Model: the output tokens the report priced for the row's pod ({@link
 *       CostReport#podTokens}), split over the pod's rows by requested GPU-hours; so over any set
 *       of rows, 10^6 × SUM(EffectiveCost) / SUM(x_OutputTokens) is the report's cost per million
 *       tokens of the pods in it.
 * </ul>
 */
public final class FocusRows {
  private static final JsonStringEncoder JSON = JsonStringEncoder.getInstance();
  private static final MathContext MC = MathContext.DECIMAL64;

  private FocusRows() {}

  /** The FOCUS file of one report. */
  public static ParquetFile of(CostReport report, String accountId, ParquetFile.Codec codec) {
    var h = report.header();
    var nodes = new HashMap<String, NodeCost>();
    var used = new HashMap<String, Double>();
    for (NodeCost n : report.nodes()) {
      nodes.put(n.id(), n);
      for (var a : n.allocations()) {
        if (a.utilisationPercent() != null) {
          used.put(key(n.id(), a.namespace(), a.pod(), a.from()), a.utilisationPercent());
        }
      }
    }
    // a pod's tokens go to its rows by their requested GPU-hours (equally when none requested)
    var podHours = new HashMap<String, double[]>();
    for (Row r : report.rows()) {
      if (r.pod() != null && report.podTokens().containsKey(r.namespace() + "/" + r.pod())) {
        double[] acc = podHours.computeIfAbsent(r.namespace() + "/" + r.pod(), k -> new double[2]);
        acc[0] += r.gpuRequestedHours();
        acc[1]++;
      }
    }
    var file = new ParquetFile(FocusColumns.ALL, codec);
    var models = new HashMap<String, String>();
    Map<String, String> tags = new HashMap<>();
    for (Row r : report.rows()) {
      NodeCost n = nodes.get(r.resourceId());
      BigDecimal perHour = n == null ? null : n.onDemandPerHour();
      boolean priced = perHour != null && perHour.signum() > 0;
      boolean idle = CostReport.IDLE.equals(r.namespace());
      String capacity = r.capacityType();
      // the report's own category (NodeBilling): one source for the JSON, CSV and FOCUS rows
      String category = r.pricingCategory() != null ? r.pricingCategory() : category(capacity);
      BigDecimal quantity = priced ? r.listCost().divide(perHour, MC) : null;
      BigDecimal contracted = "Dynamic".equals(category) ? r.effectiveCost() : r.listCost();
      Instant start = r.chargePeriodStart();
      YearMonth month = YearMonth.from(start.atOffset(ZoneOffset.UTC));
      String model =
          r.instanceType() == null
              ? null
              : models.computeIfAbsent(
                  r.instanceType(),
                  t ->
                      InstanceCatalog.find(t)
                          .filter(s -> s.accelerators() > 0)
                          .map(InstanceSpec::acceleratorModel)
                          .orElse(""));
      double capacityHours = n == null ? 0 : n.gpuCapacityHours();
      Double util = idle ? null : used.get(key(r.resourceId(), r.namespace(), r.pod(), start));
      CostReport.PodTokens tok =
          idle || r.pod() == null ? null : report.podTokens().get(r.namespace() + "/" + r.pod());
      Double tokens = null;
      if (tok != null) {
        double[] acc = podHours.get(r.namespace() + "/" + r.pod());
        tokens = tok.output() * (acc[0] > 0 ? r.gpuRequestedHours() / acc[0] : 1.0 / acc[1]);
      }
      file.add(
          r.effectiveCost(), // BilledCost
          accountId,
          null,
          r.billingCurrency(),
          month.plusMonths(1).atDay(1).atStartOfDay().toInstant(ZoneOffset.UTC),
          month.atDay(1).atStartOfDay().toInstant(ZoneOffset.UTC),
          "Usage",
          null,
          description(r, idle),
          r.chargePeriodEnd(),
          start,
          contracted,
          r.effectiveCost(),
          "Amazon Web Services, Inc.",
          r.listCost(),
          quantity,
          priced ? "Hours" : null,
          "AWS",
          "AWS",
          "Compute",
          "Amazon Elastic Compute Cloud",
          r.availabilityZone(),
          "Usage-Based",
          quantity,
          priced ? "Hours" : null,
          !priced ? null : "Dynamic".equals(category) ? unit(r, quantity) : perHour,
          priced ? perHour : null,
          category,
          r.regionId(),
          r.resourceId(),
          r.resourceName(),
          "Instance",
          "Virtual Machines",
          null,
          tags(tags, h.cluster(), r),
          h.cluster(),
          r.nodePool(),
          r.instanceType(),
          capacity,
          r.namespace(),
          idle ? null : r.team(),
          r.pod(),
          model == null || model.isEmpty() ? null : model,
          capacityHours > 0 ? Math.min(1.0, r.gpuHours() / capacityHours) : null,
          r.gpuHours(),
          r.gpuRequestedHours(),
          util == null ? null : r.gpuRequestedHours() * util / 100.0,
          r.priceSource(),
          r.allocationRule(),
          h.window(),
          tok == null ? null : tok.models(),
          tokens);
    }
    return file;
  }

  /** The Spot row's contracted unit price: what it paid per instance-hour. */
  private static BigDecimal unit(Row r, BigDecimal quantity) {
    return quantity.signum() == 0
        ? null
        : r.effectiveCost().divide(quantity, MC).setScale(6, RoundingMode.HALF_EVEN);
  }

  static String category(String capacityType) {
    if (capacityType == null) {
      return "Standard";
    }
    return switch (capacityType) {
      case "spot" -> "Dynamic";
      case "capacity-block" -> "Other";
      default -> "Standard";
    };
  }

  private static String description(Row r, boolean idle) {
    String what = r.instanceType() + " " + r.capacityType();
    return idle
        ? what + " node " + r.resourceName() + ": capacity no pod requested"
        : what + " node " + r.resourceName() + ": " + r.namespace() + "/" + r.pod();
  }

  private static String tags(Map<String, String> cache, String cluster, Row r) {
    String k = r.nodePool() + "\u0000" + r.namespace() + "\u0000" + r.team();
    return cache.computeIfAbsent(
        k,
        x -> {
          var sb = new StringBuilder("{");
          pair(sb, "eks:cluster-name", cluster);
          pair(sb, "nodepool", r.nodePool());
          pair(sb, "namespace", r.namespace());
          if (!CostReport.IDLE.equals(r.namespace())) {
            pair(sb, "team", r.team());
          }
          return sb.append('}').toString();
        });
  }

  private static void pair(StringBuilder sb, String k, String v) {
    if (v == null) {
      return;
    }
    if (sb.length() > 1) {
      sb.append(',');
    }
    sb.append('"').append(JSON.quoteAsString(k)).append("\":\"");
    sb.append(JSON.quoteAsString(v)).append('"');
  }

  private static String key(String node, String ns, String pod, Instant from) {
    return node + "\u0000" + ns + "\u0000" + pod + "\u0000" + from;
  }
}
