package io.gpufleet.cost;

import static io.gpufleet.cost.ReportBuilder.hours;
import static io.gpufleet.cost.ReportBuilder.round3;

import io.gpufleet.core.pricing.HourlyPrice;
import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.CostReport.NodeCost;
import io.gpufleet.cost.model.CostReport.Row;
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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The allocation stage of a report, one node at a time: prices the node over its span in the window
 * ({@link NodeBilling}), splits its cost over the pods that ran on it ({@link Allocator}, by the
 * configured rule; the idle part is the rest), and keeps what the report adds up afterwards: the
 * flat rows, each node's cost, the GPU nodes, CPU-only pods on GPU nodes, each pod's cost and
 * GPU-hours, the hourly series, the price sources and the unrounded GPU-hours.
 */
final class NodeCosting {
  private static final MathContext MC = MathContext.DECIMAL64;
  private static final double GIB = 1024.0 * 1024 * 1024;

  private final ReportBuilder.Inputs in;
  private final ReportWindow window;
  private final String currency;
  private final Utilisation util;
  private final Map<String, List<PodRecord>> podsByNode = new HashMap<>();
  private final List<NodeCost> nodeCosts = new ArrayList<>();
  private final List<Row> rows = new ArrayList<>();
  private final TreeMap<String, Long> sources = new TreeMap<>();
  private final List<CostReport.GpuNode> gpuNodes = new ArrayList<>();
  private final CpuOnlyPods cpuOnly;
  private final PodLedger ledger = new PodLedger();
  private final HourlySeries hourly;
  // unrounded GPU-hours for the reconciliation (rows carry them rounded to 3 decimals)
  private final double[] gpuBalance = new double[3];
  private final Set<String> countedPods = new HashSet<>();
  private int podCount;

  /**
   * A node priced and split over its pods: what each of its allocations and rows repeats. {@code
   * gpuScale} scales the pods' GPU requests down to the node's capacity where they exceed it;
   * {@code cpuOnlyShares} prices its CPU-only pods under every rule (null for none).
   */
  private record Split(
      NodeRecord node,
      NodeBilling.Priced billed,
      double hours,
      Allocator.Split effective,
      Allocator.Split list,
      double gpuScale,
      double[][] cpuOnlyShares) {}

  NodeCosting(List<PodRecord> pods, ReportBuilder.Inputs in, String currency) {
    this.in = in;
    this.window = in.window();
    this.currency = currency;
    this.util = in.utilisation();
    this.cpuOnly = new CpuOnlyPods(in.rule());
    this.hourly = new HourlySeries(window);
    for (PodRecord p : pods) {
      if (p.nodeName() != null) {
        podsByNode.computeIfAbsent(p.nodeName(), k -> new ArrayList<>()).add(p);
      }
    }
  }

  /** Prices {@code n} and allocates its cost, when it ran in the window. */
  void add(NodeRecord n) {
    Instant[] span = window.clip(n.start(), n.end());
    if (span == null) {
      return;
    }
    double hours = hours(span[0], span[1]);
    BigDecimal hoursBd =
        BigDecimal.valueOf(Duration.between(span[0], span[1]).toNanos(), 9)
            .divide(BigDecimal.valueOf(3600), MC);
    var notes = new ArrayList<String>();
    var billed = price(n, span, hoursBd, notes);

    // pods on this node (by name and overlapping time: names are reused)
    var pods = new ArrayList<PodRecord>();
    var spans = new ArrayList<Instant[]>();
    for (PodRecord p : podsByNode.getOrDefault(n.nodeName(), List.of())) {
      Instant end = p.end();
      Instant a = p.start().isAfter(span[0]) ? p.start() : span[0];
      Instant b = end == null || end.isAfter(span[1]) ? span[1] : end;
      if (b.isAfter(a)) {
        pods.add(p);
        spans.add(new Instant[] {a, b});
      }
    }
    var demands = demands(pods, spans);
    double requested = 0;
    for (var d : demands) {
      requested += d.gpuHours();
    }
    double gpuCapacity = n.accelerators() * hours;
    double gpuRequested = Math.min(requested, gpuCapacity);
    var cap =
        new Allocator.Capacity(
            gpuCapacity, n.cpuMillis() / 1000.0 * hours, n.memoryBytes() / GIB * hours);
    double[] shares = Allocator.shares(cap, demands, in.rule());
    var split =
        new Split(
            n,
            billed,
            hours,
            Allocator.split(billed.effective(), shares),
            Allocator.split(billed.list(), shares),
            requested > gpuCapacity && requested > 0 ? gpuCapacity / requested : 1.0,
            cpuOnly.shares(n, cap, demands));
    var allocations = new ArrayList<CostReport.Allocation>(pods.size());
    for (int i = 0; i < pods.size(); i++) {
      allocations.add(allocate(split, i, pods.get(i), spans.get(i), demands[i].gpuHours()));
    }
    double idleGpu = Math.max(0, gpuCapacity - gpuRequested);
    gpuBalance[0] += gpuCapacity;
    gpuBalance[2] += idleGpu;
    NodeGpus ng = n.gpus();
    // a node seen only in EC2 (never joined the cluster) has no name to look utilisation up by
    Double nodeUtil =
        n.accelerators() > 0 && n.nodeName() != null ? util.nodePercent().get(n.nodeName()) : null;
    var gpuNotes = ng == null ? List.<String>of() : ng.flags();
    notes.addAll(gpuNotes);
    if (n.accelerators() > 0 || (ng != null && !ng.advertised().isEmpty())) {
      gpuNodes.add(gpuNode(n, gpuCapacity, gpuRequested, nodeUtil, gpuNotes));
    }
    hourly.add(span[0], span[1], billed.effective(), n.group(), n.lifecycle().label());
    rows.add(
        row(
            split,
            span,
            split.list().idle(),
            split.effective().idle(),
            CostReport.IDLE,
            CostReport.IDLE,
            null,
            round3(idleGpu),
            0));
    nodeCosts.add(
        nodeCost(split, span, hoursBd, gpuCapacity, gpuRequested, nodeUtil, notes, allocations));
  }

  /** The node's price, with the notes a reader should know about it. */
  private NodeBilling.Priced price(
      NodeRecord n, Instant[] span, BigDecimal hoursBd, List<String> notes) {
    var billed = NodeBilling.price(n, span, hoursBd, currency, in, notes);
    var od = billed.onDemand();
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
    sources.merge(billed.source(), 1L, Long::sum);
    return billed;
  }

  /** Each pod's requested resource-hours over its span on the node; counts the pods once. */
  private Allocator.Demand[] demands(List<PodRecord> pods, List<Instant[]> spans) {
    var demands = new Allocator.Demand[pods.size()];
    for (int i = 0; i < pods.size(); i++) {
      PodRecord p = pods.get(i);
      double h = hours(spans.get(i)[0], spans.get(i)[1]);
      demands[i] =
          new Allocator.Demand(
              p.accelerators() * h, p.cpuMillis() / 1000.0 * h, p.memoryBytes() / GIB * h);
      if (countedPods.add(p.uid())) {
        podCount++;
      }
    }
    return demands;
  }

  /** Pod {@code i} of the node ({@code gpuDemand} GPU-hours asked): its row and allocation. */
  private CostReport.Allocation allocate(
      Split s, int i, PodRecord p, Instant[] span, double gpuDemand) {
    double g = gpuDemand * s.gpuScale();
    gpuBalance[1] += g;
    String team = p.team() == null ? "(none)" : p.team();
    String key = p.namespace() + "/" + p.name();
    Double podUtil = g > 0 ? util.podPercent().get(key) : null;
    if (s.cpuOnlyShares() != null && gpuDemand <= 0) {
      cpuOnly.add(
          p,
          s.node(),
          round3(hours(span[0], span[1])),
          s.billed().effective(),
          s.cpuOnlyShares(),
          i);
    }
    BigDecimal effective = s.effective().pods()[i];
    BigDecimal list = s.list().pods()[i];
    ledger.add(key, p.namespace(), effective, g);
    rows.add(row(s, span, list, effective, p.namespace(), team, p.name(), round3(g), round3(g)));
    return new CostReport.Allocation(
        p.namespace(), team, p.name(), span[0], span[1], round3(g), list, effective, podUtil);
  }

  /** One FOCUS row of the node: a pod's part, or the idle rest. */
  private Row row(
      Split s,
      Instant[] span,
      BigDecimal list,
      BigDecimal effective,
      String namespace,
      String team,
      String pod,
      double gpuHours,
      double gpuRequestedHours) {
    NodeRecord n = s.node();
    return new Row(
        span[0],
        span[1],
        currency,
        list,
        effective,
        s.billed().category(),
        n.id(),
        n.nodeName(),
        n.region(),
        n.zone(),
        n.group(),
        n.instanceType(),
        n.lifecycle().label(),
        namespace,
        team,
        pod,
        gpuHours,
        gpuRequestedHours,
        round3(s.hours()),
        s.billed().source(),
        in.rule().name());
  }

  private static CostReport.GpuNode gpuNode(
      NodeRecord n,
      double gpuCapacity,
      double gpuRequested,
      Double nodeUtil,
      List<String> gpuNotes) {
    NodeGpus ng = n.gpus();
    return new CostReport.GpuNode(
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
        gpuNotes);
  }

  private static NodeCost nodeCost(
      Split s,
      Instant[] span,
      BigDecimal hoursBd,
      double gpuCapacity,
      double gpuRequested,
      Double nodeUtil,
      List<String> notes,
      List<CostReport.Allocation> allocations) {
    NodeRecord n = s.node();
    NodeGpus ng = n.gpus();
    BigDecimal effective = s.billed().effective();
    BigDecimal list = s.billed().list();
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
    return new NodeCost(
        n.id(),
        n.nodeName(),
        n.instanceType(),
        n.zone(),
        n.lifecycle().label(),
        s.billed().category(),
        n.group(),
        span[0],
        span[1],
        round3(s.hours()),
        n.accelerators(),
        round3(gpuCapacity),
        round3(gpuRequested),
        s.billed().onDemand().map(HourlyPrice::perHour).orElse(null),
        s.hours() > 0
            ? effective
                .divide(hoursBd.max(new BigDecimal("1e-9")), MC)
                .setScale(4, RoundingMode.HALF_EVEN)
            : null,
        list.setScale(2, RoundingMode.HALF_EVEN),
        effective.setScale(2, RoundingMode.HALF_EVEN),
        s.effective().idle(),
        s.billed().source(),
        s.billed().detail(),
        commitmentSaved,
        ng == null ? null : ng.sharing(),
        ng == null ? null : ng.advertisedText(),
        nodeUtil,
        utilIdle,
        n.ec2Matched(),
        n.inCluster(),
        n.endEstimated(),
        List.copyOf(notes),
        allocations);
  }

  /** The nodes' costs, in inventory order. */
  List<NodeCost> nodeCosts() {
    return nodeCosts;
  }

  /** Every pod's row and every node's idle row, node by node. */
  List<Row> rows() {
    return rows;
  }

  /** How many nodes each price source priced. */
  TreeMap<String, Long> sources() {
    return sources;
  }

  List<CostReport.GpuNode> gpuNodes() {
    return gpuNodes;
  }

  CpuOnlyPods cpuOnly() {
    return cpuOnly;
  }

  PodLedger ledger() {
    return ledger;
  }

  HourlySeries hourly() {
    return hourly;
  }

  /** Unrounded GPU-hours over the nodes: capacity, requested, idle. */
  double[] gpuBalance() {
    return gpuBalance;
  }

  /** Distinct pods (by uid) that ran on a node in the window. */
  int podCount() {
    return podCount;
  }
}
