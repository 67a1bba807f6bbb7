package io.gpufleet.cost;

import io.gpufleet.core.pricing.HourlyPrice;
import io.gpufleet.core.pricing.OnDemandPrices;
import io.gpufleet.core.pricing.PriceSource;
import io.gpufleet.core.pricing.PricingEndpoint;
import io.gpufleet.core.pricing.StaticPrices;
import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.CostReport.NodeCost;
import io.gpufleet.cost.model.CostReport.Row;
import io.gpufleet.cost.model.InventorySnapshot;
import io.gpufleet.cost.model.Lifecycle;
import io.gpufleet.cost.model.NodeRecord;
import io.gpufleet.cost.model.PodRecord;
import io.gpufleet.cost.model.ReportWindow;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Pure: prices every node of an inventory over a window, allocates each node's cost to its pods,
 * and computes rollups and KPIs. Prices come through the ports it is given (already warmed by the
 * service, so lookups here are memory hits).
 */
public final class ReportBuilder {
  private static final MathContext MC = MathContext.DECIMAL64;
  private static final double GIB = 1024.0 * 1024 * 1024;

  private ReportBuilder() {}

  /** What the builder needs besides the inventory. */
  public record Inputs(
      String cluster,
      String region,
      ReportWindow window,
      Instant generatedAt,
      AllocationRule rule,
      String teamLabel,
      OnDemandPrices onDemand,
      SpotPrices spot,
      List<String> notes) {}

  public static CostReport build(InventorySnapshot inventory, Inputs in) {
    ReportWindow w = in.window();
    var podsByNode = new HashMap<String, List<PodRecord>>();
    for (PodRecord p : inventory.pods()) {
      if (p.nodeName() != null) {
        podsByNode.computeIfAbsent(p.nodeName(), k -> new ArrayList<>()).add(p);
      }
    }
    String currency = PricingEndpoint.currencyFor(in.region());
    var nodeCosts = new ArrayList<NodeCost>();
    var rows = new ArrayList<Row>();
    var sources = new TreeMap<String, Long>();
    int podCount = 0;
    var countedPods = new java.util.HashSet<String>();
    for (NodeRecord n : inventory.nodes()) {
      Instant[] span = w.clip(n.start(), n.end());
      if (span == null) {
        continue;
      }
      double hours = hours(span[0], span[1]);
      BigDecimal hoursBd =
          BigDecimal.valueOf(Duration.between(span[0], span[1]).toNanos(), 9)
              .divide(BigDecimal.valueOf(3600), MC);
      var notes = new ArrayList<String>();
      var priced = in.onDemand().hourly(n.region(), n.instanceType());
      if (priced.isPresent() && !priced.get().currency().equals(currency)) {
        // never add a USD price into a CNY report (or the reverse) as if it were the same money
        notes.add(
            "On-Demand price in "
                + priced.get().currency()
                + " ignored: this report is in "
                + currency);
      }
      Optional<HourlyPrice> od = priced.filter(p -> p.currency().equals(currency));
      BigDecimal list = od.map(p -> p.perHour().multiply(hoursBd, MC)).orElse(null);
      BigDecimal effective;
      String source;
      if (n.lifecycle() == Lifecycle.SPOT) {
        var spot = in.spot().cost(n.zone(), n.instanceType(), span[0], span[1]);
        if (spot.isPresent()) {
          effective = spot.get();
          source = label(PriceSource.SPOT_HISTORY);
        } else {
          effective = list;
          source = od.map(p -> label(p.source())).orElse("unknown");
          notes.add("no Spot price history for " + n.zone() + ": On-Demand price used");
        }
        if (list == null && effective != null) {
          list = effective;
          notes.add("no On-Demand price: list cost shown at the Spot price");
        }
      } else {
        effective = list;
        source = od.map(p -> label(p.source())).orElse("unknown");
        if (n.lifecycle() == Lifecycle.CAPACITY_BLOCK) {
          notes.add("Capacity Block prices are not in the public price list: On-Demand equivalent");
        }
      }
      if (effective == null) {
        effective = BigDecimal.ZERO;
        list = BigDecimal.ZERO;
        notes.add("no price known for " + n.instanceType() + " in " + n.region());
      }
      od.flatMap(HourlyPrice::asOf)
          .ifPresent(d -> notes.add("On-Demand price as of " + d + " (" + od.get().source() + ")"));
      if (!n.ec2Matched()) {
        notes.add("no EC2 instance matched: type, zone and lifecycle from node labels");
      }
      if (!n.inCluster()) {
        notes.add("tagged for the cluster but never seen as a node");
      }
      if (n.endEstimated()) {
        notes.add("gone; end is the last time it was seen");
      }
      sources.merge(source, 1L, Long::sum);

      // pods on this node (by name and overlapping time: names are reused)
      var candidates = podsByNode.getOrDefault(n.nodeName(), List.of());
      var pods = new ArrayList<PodRecord>();
      var spans = new ArrayList<Instant[]>();
      for (PodRecord p : candidates) {
        Instant end = p.end();
        Instant a = p.start().isAfter(span[0]) ? p.start() : span[0];
        Instant b = end == null || end.isAfter(span[1]) ? span[1] : end;
        if (b.isAfter(a)) {
          pods.add(p);
          spans.add(new Instant[] {a, b});
        }
      }
      var demands = new Allocator.Demand[pods.size()];
      double gpuRequested = 0;
      for (int i = 0; i < pods.size(); i++) {
        PodRecord p = pods.get(i);
        double h = hours(spans.get(i)[0], spans.get(i)[1]);
        demands[i] =
            new Allocator.Demand(
                p.accelerators() * h, p.cpuMillis() / 1000.0 * h, p.memoryBytes() / GIB * h);
        gpuRequested += demands[i].gpuHours();
        if (countedPods.add(p.uid())) {
          podCount++;
        }
      }
      double gpuCapacity = n.accelerators() * hours;
      gpuRequested = Math.min(gpuRequested, gpuCapacity);
      var cap =
          new Allocator.Capacity(
              gpuCapacity, n.cpuMillis() / 1000.0 * hours, n.memoryBytes() / GIB * hours);
      double[] shares = Allocator.shares(cap, demands, in.rule());
      var eff = Allocator.split(effective, shares);
      var lst = Allocator.split(list, shares);
      BigDecimal effCents = effective.setScale(2, RoundingMode.HALF_EVEN);
      BigDecimal listCents = list.setScale(2, RoundingMode.HALF_EVEN);
      String capacityType = n.lifecycle().label();
      String category = n.lifecycle().pricingCategory();
      double scaleGpu = 1.0;
      double rawRequested = 0;
      for (var d : demands) {
        rawRequested += d.gpuHours();
      }
      if (rawRequested > gpuCapacity && rawRequested > 0) {
        scaleGpu = gpuCapacity / rawRequested;
      }
      var allocations = new ArrayList<CostReport.Allocation>(pods.size());
      for (int i = 0; i < pods.size(); i++) {
        PodRecord p = pods.get(i);
        double g = demands[i].gpuHours() * scaleGpu;
        String team = p.team() == null ? "(none)" : p.team();
        allocations.add(
            new CostReport.Allocation(
                p.namespace(),
                team,
                p.name(),
                spans.get(i)[0],
                spans.get(i)[1],
                round3(g),
                lst.pods()[i],
                eff.pods()[i]));
        rows.add(
            new Row(
                spans.get(i)[0],
                spans.get(i)[1],
                currency,
                lst.pods()[i],
                eff.pods()[i],
                category,
                n.id(),
                n.nodeName(),
                n.region(),
                n.zone(),
                n.group(),
                n.instanceType(),
                capacityType,
                p.namespace(),
                team,
                p.name(),
                round3(g),
                round3(g),
                round3(hours),
                source,
                in.rule().name()));
      }
      double idleGpu = Math.max(0, gpuCapacity - gpuRequested);
      rows.add(
          new Row(
              span[0],
              span[1],
              currency,
              lst.idle(),
              eff.idle(),
              category,
              n.id(),
              n.nodeName(),
              n.region(),
              n.zone(),
              n.group(),
              n.instanceType(),
              capacityType,
              CostReport.IDLE,
              CostReport.IDLE,
              null,
              round3(idleGpu),
              0,
              round3(hours),
              source,
              in.rule().name()));
      nodeCosts.add(
          new NodeCost(
              n.id(),
              n.nodeName(),
              n.instanceType(),
              n.zone(),
              capacityType,
              category,
              n.group(),
              span[0],
              span[1],
              round3(hours),
              n.accelerators(),
              round3(gpuCapacity),
              round3(gpuRequested),
              od.map(HourlyPrice::perHour).orElse(null),
              hours > 0
                  ? effective
                      .divide(hoursBd.max(new BigDecimal("1e-9")), MC)
                      .setScale(4, RoundingMode.HALF_EVEN)
                  : null,
              listCents,
              effCents,
              eff.idle(),
              source,
              n.ec2Matched(),
              n.inCluster(),
              n.endEstimated(),
              List.copyOf(notes),
              allocations));
    }
    nodeCosts.sort(
        Comparator.comparing(NodeCost::effectiveCost).reversed().thenComparing(NodeCost::id));

    var rollups = new LinkedHashMap<String, List<CostReport.Rollup>>();
    rollups.put("nodePool", nodeRollup(nodeCosts, NodeCost::nodePool));
    rollups.put("instanceType", nodeRollup(nodeCosts, NodeCost::instanceType));
    rollups.put("capacityType", nodeRollup(nodeCosts, NodeCost::capacityType));
    rollups.put("zone", nodeRollup(nodeCosts, NodeCost::zone));
    rollups.put("namespace", rowRollup(rows, Row::namespace));
    rollups.put("team", rowRollup(rows, Row::team));

    var kpis = kpis(nodeCosts, rows, w, podCount);
    var header =
        new CostReport.Header(
            in.cluster(),
            in.region(),
            w.spec(),
            w.start(),
            w.end(),
            in.generatedAt(),
            currency,
            in.rule().name(),
            in.rule().describe(),
            in.teamLabel(),
            sources,
            StaticPrices.AS_OF + " (" + StaticPrices.sourceFor(in.region()) + ")",
            in.notes());
    return new CostReport(header, kpis, rollups, nodeCosts, rows);
  }

  static String label(PriceSource s) {
    return s.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  private static double hours(Instant a, Instant b) {
    return Duration.between(a, b).toNanos() / 3.6e12;
  }

  private static double round3(double v) {
    return Math.round(v * 1000.0) / 1000.0;
  }

  private static List<CostReport.Rollup> nodeRollup(
      List<NodeCost> nodes, Function<NodeCost, String> key) {
    var acc = new TreeMap<String, double[]>();
    var money = new TreeMap<String, BigDecimal[]>();
    for (NodeCost n : nodes) {
      String k = key.apply(n) == null ? "(none)" : key.apply(n);
      var d = acc.computeIfAbsent(k, x -> new double[3]);
      d[0] += n.hours();
      d[1] += n.gpuCapacityHours();
      d[2] += n.gpuRequestedHours();
      var m = money.computeIfAbsent(k, x -> new BigDecimal[] {BigDecimal.ZERO, BigDecimal.ZERO});
      m[0] = m[0].add(n.effectiveCost());
      m[1] = m[1].add(n.listCost());
    }
    return sorted(acc, money);
  }

  private static List<CostReport.Rollup> rowRollup(List<Row> rows, Function<Row, String> key) {
    var acc = new HashMap<String, double[]>();
    var money = new HashMap<String, BigDecimal[]>();
    for (Row r : rows) {
      String k = key.apply(r) == null ? "(none)" : key.apply(r);
      var d = acc.computeIfAbsent(k, x -> new double[3]);
      d[1] += r.gpuHours();
      d[2] += r.gpuRequestedHours();
      var m = money.computeIfAbsent(k, x -> new BigDecimal[] {BigDecimal.ZERO, BigDecimal.ZERO});
      m[0] = m[0].add(r.effectiveCost());
      m[1] = m[1].add(r.listCost());
    }
    return sorted(acc, money);
  }

  private static List<CostReport.Rollup> sorted(
      Map<String, double[]> acc, Map<String, BigDecimal[]> money) {
    var out = new ArrayList<CostReport.Rollup>();
    acc.forEach(
        (k, d) ->
            out.add(
                new CostReport.Rollup(
                    k,
                    money.get(k)[0],
                    money.get(k)[1],
                    round3(d[0]),
                    round3(d[1]),
                    round3(d[2]))));
    out.sort(
        Comparator.comparing(CostReport.Rollup::effectiveCost)
            .reversed()
            .thenComparing(CostReport.Rollup::key));
    return out;
  }

  private static CostReport.Kpis kpis(
      List<NodeCost> nodes, List<Row> rows, ReportWindow w, int pods) {
    BigDecimal total = BigDecimal.ZERO;
    BigDecimal list = BigDecimal.ZERO;
    BigDecimal savings = BigDecimal.ZERO;
    BigDecimal spotCost = BigDecimal.ZERO;
    BigDecimal gpuNodeCost = BigDecimal.ZERO;
    BigDecimal idleGpuCost = BigDecimal.ZERO;
    BigDecimal allocatedIdle = BigDecimal.ZERO;
    double nodeHours = 0;
    double spotHours = 0;
    double gpuCap = 0;
    double gpuReq = 0;
    int noMatch = 0;
    int snapshotOnly = 0;
    int unpriced = 0;
    for (NodeCost n : nodes) {
      total = total.add(n.effectiveCost());
      list = list.add(n.listCost());
      allocatedIdle = allocatedIdle.add(n.idleCost());
      nodeHours += n.hours();
      if ("spot".equals(n.capacityType())) {
        spotHours += n.hours();
        spotCost = spotCost.add(n.effectiveCost());
        savings = savings.add(n.listCost().subtract(n.effectiveCost()));
      }
      if (n.accelerators() > 0) {
        gpuNodeCost = gpuNodeCost.add(n.effectiveCost());
        gpuCap += n.gpuCapacityHours();
        gpuReq += n.gpuRequestedHours();
        if (n.gpuCapacityHours() > 0) {
          double idleShare = Math.max(0, 1 - n.gpuRequestedHours() / n.gpuCapacityHours());
          idleGpuCost =
              idleGpuCost.add(n.effectiveCost().multiply(BigDecimal.valueOf(idleShare), MC));
        }
      }
      if (!n.ec2Matched()) {
        noMatch++;
      }
      if (n.endEstimated()) {
        snapshotOnly++;
      }
      if ("unknown".equals(n.priceSource())) {
        unpriced++;
      }
    }
    double windowHours = hours(w.start(), w.end());
    BigDecimal runRate = total.divide(BigDecimal.valueOf(windowHours), MC);
    var end = w.end().atZone(ZoneOffset.UTC);
    YearMonth month = YearMonth.from(end);
    Instant monthEnd = month.plusMonths(1).atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant();
    Instant monthStart = month.atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant();
    BigDecimal projected =
        "mtd".equals(w.spec())
            ? total.add(runRate.multiply(BigDecimal.valueOf(hours(w.end(), monthEnd)), MC))
            : runRate.multiply(BigDecimal.valueOf(hours(monthStart, monthEnd)), MC);
    return new CostReport.Kpis(
        total,
        list,
        savings,
        ratio(spotHours, nodeHours),
        total.signum() == 0 ? 0 : round4(spotCost.doubleValue() / total.doubleValue()),
        round3(nodeHours),
        round3(gpuCap),
        round3(gpuReq),
        gpuCap > 0
            ? gpuNodeCost.divide(BigDecimal.valueOf(gpuCap), MC).setScale(4, RoundingMode.HALF_EVEN)
            : null,
        gpuCap > 0 ? Math.round((gpuCap - gpuReq) / gpuCap * 10000.0) / 100.0 : 0,
        idleGpuCost.setScale(2, RoundingMode.HALF_EVEN),
        allocatedIdle,
        runRate.setScale(2, RoundingMode.HALF_EVEN),
        projected.setScale(2, RoundingMode.HALF_EVEN),
        nodes.size(),
        noMatch,
        snapshotOnly,
        unpriced,
        pods);
  }

  private static double ratio(double a, double b) {
    return b <= 0 ? 0 : round4(a / b);
  }

  private static double round4(double v) {
    return Math.round(v * 10000.0) / 10000.0;
  }
}
