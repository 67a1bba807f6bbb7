package io.gpufleet.cost;

import io.gpufleet.core.pricing.HourlyPrice;
import io.gpufleet.core.pricing.OnDemandPrices;
import io.gpufleet.core.pricing.PriceSource;
import io.gpufleet.core.pricing.PricingEndpoint;
import io.gpufleet.core.pricing.StaticPrices;
import io.gpufleet.cost.model.Commitments;
import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.CostReport.NodeCost;
import io.gpufleet.cost.model.CostReport.Row;
import io.gpufleet.cost.model.InventorySnapshot;
import io.gpufleet.cost.model.Lifecycle;
import io.gpufleet.cost.model.NodeGpus;
import io.gpufleet.cost.model.NodeRecord;
import io.gpufleet.cost.model.PodRecord;
import io.gpufleet.cost.model.ReportWindow;
import io.gpufleet.cost.model.Utilisation;
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
      List<String> notes,
      Commitments commitments,
      Utilisation utilisation,
      Map<String, String> dataSources) {

    public Inputs(
        String cluster,
        String region,
        ReportWindow window,
        Instant generatedAt,
        AllocationRule rule,
        String teamLabel,
        OnDemandPrices onDemand,
        SpotPrices spot,
        List<String> notes) {
      this(
          cluster,
          region,
          window,
          generatedAt,
          rule,
          teamLabel,
          onDemand,
          spot,
          notes,
          Commitments.none("no commitment source configured"),
          Utilisation.none("no utilisation source configured"),
          Map.of());
    }
  }

  /** The rules every CPU-only pod on a GPU node is priced under, besides the configured one. */
  static final List<AllocationRule> REFERENCE_RULES =
      List.of(AllocationRule.GPU, AllocationRule.parse("cpu-memory"));

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
    Utilisation util = in.utilisation();
    var gpuNodes = new ArrayList<CostReport.GpuNode>();
    // the costliest CPU-only pods (a bounded min-heap by their dearest rule): all are counted and
    // priced in the KPIs, CPU_ONLY_LISTED are listed
    var cpuOnly =
        new java.util.PriorityQueue<CostReport.CpuOnlyPod>(
            Comparator.comparing(ReportBuilder::dearest));
    var cpuOnlyByRule = new LinkedHashMap<String, BigDecimal>();
    int cpuOnlyCount = 0;
    var podCost = new HashMap<String, BigDecimal>();
    var nsGpuPodCost = new HashMap<String, BigDecimal>();
    // requested GPU-hours by "namespace/pod" and by namespace: a namespace's pod-less token series
    // go to its GPU pods in proportion (TokenCosts.perPod)
    var podGpuHours = new HashMap<String, Double>();
    var nsGpuHours = new HashMap<String, Double>();
    var hourly = new HourlySeries(w);
    // unrounded GPU-hours for the reconciliation (rows carry them rounded to 3 decimals)
    double[] gpuBalance = new double[3];
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
      var billed = NodeBilling.price(n, span, hoursBd, currency, in, notes);
      Optional<HourlyPrice> od = billed.onDemand();
      BigDecimal list = billed.list();
      BigDecimal effective = billed.effective();
      String source = billed.source();
      String priceDetail = billed.detail();
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
      String category = billed.category();
      double scaleGpu = 1.0;
      double rawRequested = 0;
      for (var d : demands) {
        rawRequested += d.gpuHours();
      }
      if (rawRequested > gpuCapacity && rawRequested > 0) {
        scaleGpu = gpuCapacity / rawRequested;
      }
      var allocations = new ArrayList<CostReport.Allocation>(pods.size());
      double[][] cpuOnlyShares = null;
      if (n.accelerators() > 0) {
        boolean any = false;
        for (var d : demands) {
          any |= d.gpuHours() <= 0;
        }
        if (any) {
          var rules = cpuOnlyRules(in.rule());
          cpuOnlyShares = new double[rules.size()][];
          for (int r = 0; r < rules.size(); r++) {
            cpuOnlyShares[r] = Allocator.shares(cap, demands, rules.get(r));
          }
        }
      }
      for (int i = 0; i < pods.size(); i++) {
        PodRecord p = pods.get(i);
        double g = demands[i].gpuHours() * scaleGpu;
        gpuBalance[1] += g;
        String team = p.team() == null ? "(none)" : p.team();
        Double podUtil = g > 0 ? util.podPercent().get(p.namespace() + "/" + p.name()) : null;
        if (cpuOnlyShares != null && demands[i].gpuHours() <= 0) {
          var rules = cpuOnlyRules(in.rule());
          var byRule = new LinkedHashMap<String, BigDecimal>();
          for (int r = 0; r < rules.size(); r++) {
            BigDecimal c =
                effective
                    .multiply(BigDecimal.valueOf(cpuOnlyShares[r][i]), MC)
                    .setScale(2, RoundingMode.HALF_EVEN);
            byRule.put(rules.get(r).name(), c);
            cpuOnlyByRule.merge(rules.get(r).name(), c, BigDecimal::add);
          }
          cpuOnlyCount++;
          cpuOnly.add(
              new CostReport.CpuOnlyPod(
                  p.namespace(),
                  p.name(),
                  n.nodeName(),
                  n.instanceType(),
                  round3(hours(spans.get(i)[0], spans.get(i)[1])),
                  byRule));
          if (cpuOnly.size() > CPU_ONLY_LISTED) {
            cpuOnly.poll();
          }
        }
        podCost.merge(p.namespace() + "/" + p.name(), eff.pods()[i], BigDecimal::add);
        nsGpuPodCost.merge(p.namespace(), g > 0 ? eff.pods()[i] : BigDecimal.ZERO, BigDecimal::add);
        podGpuHours.merge(p.namespace() + "/" + p.name(), g, Double::sum);
        nsGpuHours.merge(p.namespace(), g, Double::sum);
        allocations.add(
            new CostReport.Allocation(
                p.namespace(),
                team,
                p.name(),
                spans.get(i)[0],
                spans.get(i)[1],
                round3(g),
                lst.pods()[i],
                eff.pods()[i],
                podUtil));
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
      gpuBalance[0] += gpuCapacity;
      gpuBalance[2] += idleGpu;
      NodeGpus ng = n.gpus();
      // a node seen only in EC2 (never joined the cluster) has no name to look utilisation up by
      Double nodeUtil =
          n.accelerators() > 0 && n.nodeName() != null
              ? util.nodePercent().get(n.nodeName())
              : null;
      BigDecimal utilIdle =
          nodeUtil == null
              ? null
              : effective
                  .multiply(BigDecimal.valueOf(Math.max(0, 1 - nodeUtil / 100.0)), MC)
                  .setScale(2, RoundingMode.HALF_EVEN);
      BigDecimal commitmentSaved =
          n.lifecycle() == Lifecycle.SPOT
              ? BigDecimal.ZERO
              : list.subtract(effective).setScale(2, RoundingMode.HALF_EVEN);
      var gpuNotes = ng == null ? List.<String>of() : ng.flags();
      notes.addAll(gpuNotes);
      if (n.accelerators() > 0 || (ng != null && !ng.advertised().isEmpty())) {
        gpuNodes.add(
            new CostReport.GpuNode(
                n.nodeName() == null ? n.id() : n.nodeName(),
                n.instanceType(),
                n.group(),
                n.accelerators(),
                ng == null ? "-" : ng.advertisedText(),
                ng == null ? n.accelerators() : ng.advertisedPhysical(),
                ng == null ? "unknown" : ng.sharing(),
                ng == null ? 1 : ng.replicas(),
                round3(gpuCapacity),
                round3(gpuRequested),
                nodeUtil,
                gpuNotes));
      }
      hourly.add(span[0], span[1], effective, n.group(), n.lifecycle().label());
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
              priceDetail,
              commitmentSaved,
              ng == null ? null : ng.sharing(),
              ng == null ? null : ng.advertisedText(),
              nodeUtil,
              utilIdle,
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

    var tokens = TokenCosts.of(util.tokens(), podCost, nsGpuPodCost, nsGpuHours);
    var podTokens = TokenCosts.perPod(util.tokens(), podCost, podGpuHours, nsGpuHours);
    var notes = new ArrayList<>(in.notes());
    double unallocated = TokenCosts.unallocated(util.tokens(), podCost, nsGpuHours);
    if (unallocated > 0) {
      notes.add(
          String.format(
              Locale.ROOT,
              "%.0f output tokens came from pods (or namespaces without GPU pods) with no"
                  + " allocation in the window: not in cost per token",
              unallocated));
    }
    var cpuOnlyListed = new ArrayList<>(cpuOnly);
    cpuOnlyListed.sort(Comparator.comparing(ReportBuilder::dearest).reversed());
    var kpis = kpis(nodeCosts, rows, w, podCount);
    kpis = extend(kpis, nodeCosts, gpuNodes, cpuOnlyCount, cpuOnlyByRule, tokens);
    gpuNodes.sort(Comparator.comparing(CostReport.GpuNode::node));
    var dataSources = new LinkedHashMap<String, String>(in.dataSources());

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
            dataSources,
            List.copyOf(notes));
    return new CostReport(
        header,
        kpis,
        rollups,
        nodeCosts,
        gpuNodes,
        cpuOnlyListed,
        tokens,
        hourly.points(),
        reconcile(nodeCosts, rows, gpuBalance),
        rows,
        podTokens);
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
        pods,
        BigDecimal.ZERO,
        0,
        0,
        0,
        null,
        null,
        0,
        Map.of(),
        null);
  }

  /** At most this many CPU-only pods are listed (the KPIs count and price them all). */
  static final int CPU_ONLY_LISTED = 500;

  private static BigDecimal dearest(CostReport.CpuOnlyPod c) {
    BigDecimal max = BigDecimal.ZERO;
    for (BigDecimal v : c.costByRule().values()) {
      max = v.compareTo(max) > 0 ? v : max;
    }
    return max;
  }

  static List<AllocationRule> cpuOnlyRules(AllocationRule configured) {
    var out = new ArrayList<>(REFERENCE_RULES);
    if (out.stream().noneMatch(r -> r.name().equals(configured.name()))) {
      out.add(configured);
    }
    return out;
  }

  private static CostReport.Kpis extend(
      CostReport.Kpis k,
      List<NodeCost> nodes,
      List<CostReport.GpuNode> gpuNodes,
      int cpuOnlyCount,
      Map<String, BigDecimal> cpuOnlyByRule,
      List<CostReport.TokenCost> tokens) {
    BigDecimal saved = BigDecimal.ZERO;
    BigDecimal utilIdle = BigDecimal.ZERO;
    double utilWeighted = 0;
    double utilHours = 0;
    boolean anyUtil = false;
    for (NodeCost n : nodes) {
      saved = saved.add(n.commitmentSavings());
      if (n.utilisationPercent() != null && n.gpuCapacityHours() > 0) {
        anyUtil = true;
        utilIdle = utilIdle.add(n.utilisationIdleCost());
        utilWeighted += n.utilisationPercent() * n.gpuCapacityHours();
        utilHours += n.gpuCapacityHours();
      }
    }
    int physical = 0;
    int advertised = 0;
    int zero = 0;
    for (var g : gpuNodes) {
      physical += g.physicalGpus();
      if (g.flags().stream().anyMatch(f -> f.startsWith("GPU instance with 0 allocatable"))) {
        zero++;
      }
    }
    for (NodeCost n : nodes) {
      // advertised units as the scheduler sees them (replicas, MIG slices, DRA devices)
      if (n.advertisedGpus() != null && !"-".equals(n.advertisedGpus())) {
        for (String part : n.advertisedGpus().split(", ")) {
          int c = part.lastIndexOf(": ");
          advertised += Integer.parseInt(part.substring(c + 2));
        }
      }
    }
    BigDecimal tokenCost = BigDecimal.ZERO;
    double tokenCount = 0;
    for (var t : tokens) {
      tokenCost = tokenCost.add(t.cost());
      tokenCount += t.outputTokens();
    }
    return new CostReport.Kpis(
        k.totalCost(),
        k.onDemandEquivalentCost(),
        k.spotSavings(),
        k.spotShareOfNodeHours(),
        k.spotShareOfCost(),
        k.nodeHours(),
        k.gpuCapacityHours(),
        k.gpuRequestedHours(),
        k.costPerGpuHour(),
        k.idleGpuPercent(),
        k.idleGpuCost(),
        k.allocatedIdleCost(),
        k.runRatePerHour(),
        k.projectedMonthTotal(),
        k.nodes(),
        k.nodesWithoutEc2Match(),
        k.nodesFromSnapshotOnly(),
        k.unpricedNodes(),
        k.pods(),
        saved,
        physical,
        advertised,
        zero,
        anyUtil ? Math.round(utilWeighted / utilHours * 100) / 100.0 : null,
        anyUtil ? utilIdle : null,
        cpuOnlyCount,
        cpuOnlyByRule,
        tokenCount > 0
            ? tokenCost
                .multiply(BigDecimal.valueOf(1_000_000), MC)
                .divide(BigDecimal.valueOf(tokenCount), MC)
                .setScale(4, RoundingMode.HALF_EVEN)
            : null);
  }

  /**
   * Money from the rows (exact cents); GPU-hours from the unrounded per-node figures ({@code gpu}:
   * capacity, requested, idle), as the rows round each to 3 decimals.
   */
  private static CostReport.Reconciliation reconcile(
      List<NodeCost> nodes, List<Row> rows, double[] gpu) {
    BigDecimal nodeCost = BigDecimal.ZERO;
    for (NodeCost n : nodes) {
      nodeCost = nodeCost.add(n.effectiveCost());
    }
    BigDecimal allocated = BigDecimal.ZERO;
    BigDecimal idle = BigDecimal.ZERO;
    for (Row r : rows) {
      if (CostReport.IDLE.equals(r.namespace())) {
        idle = idle.add(r.effectiveCost());
      } else {
        allocated = allocated.add(r.effectiveCost());
      }
    }
    double cap = gpu[0];
    double req = gpu[1];
    double idleH = gpu[2];
    boolean balanced =
        allocated.add(idle).compareTo(nodeCost) == 0
            && Math.abs(req + idleH - cap) <= Math.max(1e-6, cap * 1e-9);
    return new CostReport.Reconciliation(
        nodeCost, allocated, idle, round3(cap), round3(req), round3(idleH), balanced);
  }

  private static double ratio(double a, double b) {
    return b <= 0 ? 0 : round4(a / b);
  }

  private static double round4(double v) {
    return Math.round(v * 10000.0) / 10000.0;
  }
}
