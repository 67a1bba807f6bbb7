package io.gpufleet.preflight;

import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.catalog.InstanceCatalog;
import io.gpufleet.core.catalog.InstanceSpec;
import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.preflight.model.NodePoolSpec;
import io.gpufleet.preflight.model.PoolFinding;
import io.gpufleet.preflight.model.QuotaValue;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Pure: turns each NodePool's {@code limits} into worst-case vCPU per quota bucket and capacity
 * type and compares them with the quotas. A GPU (or Neuron) limit is worth limit × the highest
 * vCPU-per-accelerator ratio among the accelerated types the pool allows, counted against every
 * bucket and capacity type it allows; a {@code cpu} limit caps that.
 */
public final class NodePoolAnalyzer {
  static final String CATEGORY = "karpenter.k8s.aws/instance-category";
  static final String FAMILY = "karpenter.k8s.aws/instance-family";
  static final String GPU_COUNT = "karpenter.k8s.aws/instance-gpu-count";
  static final String INSTANCE_TYPE = "node.kubernetes.io/instance-type";
  static final String CAPACITY_TYPE = "karpenter.sh/capacity-type";
  static final Set<String> ACCELERATOR_RESOURCES =
      Set.of("nvidia.com/gpu", "aws.amazon.com/neuron", "habana.ai/gaudi");

  /** Below this many vCPU a G and VT quota cannot hold even one g6e.48xlarge. */
  static final double SMALL_G_QUOTA = 192;

  /** Worst-case vCPU of one pool for one quota. */
  public record PoolExposure(String nodePool, QuotaBucket.Key key, double worstCaseVcpu) {}

  public List<PoolExposure> exposures(NodePoolSpec pool) {
    var out = new ArrayList<PoolExposure>();
    worstCase(pool).forEach((k, v) -> out.add(new PoolExposure(pool.name(), k, v)));
    return out;
  }

  /** Findings for every pool against one region's quotas. */
  public List<PoolFinding> analyze(
      List<NodePoolSpec> pools, Map<QuotaBucket.Key, QuotaValue> quotas) {
    var findings = new ArrayList<PoolFinding>();
    for (NodePoolSpec pool : pools) {
      analyze(pool, quotas, findings);
      PoolLint.lint(pool, isGpuPool(pool), acceleratorLimit(pool).isPresent(), findings);
    }
    summed(pools, quotas, findings);
    return findings;
  }

  /**
   * Pools that share a quota bucket draw on the same quota: their worst cases are summed per
   * (bucket, capacity type) and compared with it. Reported when two or more pools reach a bucket
   * and together exceed it (a pool that exceeds it alone is reported by itself already).
   */
  private void summed(
      List<NodePoolSpec> pools, Map<QuotaBucket.Key, QuotaValue> quotas, List<PoolFinding> out) {
    var byKey = new TreeMap<QuotaBucket.Key, Map<String, Double>>();
    for (NodePoolSpec pool : pools) {
      worstCase(pool)
          .forEach(
              (k, v) ->
                  byKey
                      .computeIfAbsent(k, x -> new java.util.LinkedHashMap<>())
                      .put(pool.name(), v));
    }
    byKey.forEach(
        (key, perPool) -> {
          QuotaValue q = quotas.get(key);
          if (q == null || perPool.size() < 2) {
            return;
          }
          double total = perPool.values().stream().mapToDouble(Double::doubleValue).sum();
          if (total <= q.value()) {
            return;
          }
          boolean eachFits = perPool.values().stream().allMatch(v -> v <= q.value());
          var parts = new ArrayList<String>();
          perPool.forEach((name, v) -> parts.add(name + " " + VcpuText.vcpu(v)));
          out.add(
              new PoolFinding(
                  String.join("+", perPool.keySet()),
                  PoolFinding.WARNING,
                  "GPU limits summed over the pools sharing the "
                      + key.label()
                      + " quota can exceed it: "
                      + String.join(" + ", parts)
                      + " = "
                      + VcpuText.vcpu(total)
                      + " worst case against a quota of "
                      + VcpuText.vcpu(q.value())
                      + (eachFits ? " (each pool fits alone)" : "")
                      + "; lower the pools' GPU limits so they add up to at most "
                      + VcpuText.vcpu(q.value())
                      + " or raise the quota"));
        });
  }

  private void analyze(
      NodePoolSpec pool, Map<QuotaBucket.Key, QuotaValue> quotas, List<PoolFinding> findings) {
    Optional<Double> gpuLimit = acceleratorLimit(pool);
    Optional<Double> cpuLimit = quantity(pool.limits().get("cpu"));
    boolean gpuOnly = isGpuPool(pool);
    if (gpuLimit.isPresent() && cpuLimit.isEmpty() && !gpuOnly) {
      findings.add(
          new PoolFinding(
              pool.name(),
              PoolFinding.WARNING,
              "limit "
                  + acceleratorLimitText(pool)
                  + " does not bound vCPU: the pool may also launch GPU-less types; require "
                  + GPU_COUNT
                  + " Gt 0 or add a cpu limit"));
    }
    if (gpuLimit.isEmpty() && cpuLimit.isEmpty()) {
      findings.add(
          new PoolFinding(
              pool.name(),
              PoolFinding.WARNING,
              "no cpu or GPU limit: nothing bounds what this pool can launch except the quotas"));
    }
    var worst = worstCase(pool);
    worst.forEach(
        (key, vcpu) -> {
          QuotaValue q = quotas.get(key);
          if (q == null) {
            return;
          }
          if (vcpu > q.value()) {
            findings.add(
                new PoolFinding(
                    pool.name(),
                    PoolFinding.WARNING,
                    "can exceed the "
                        + key.label()
                        + " quota: worst case "
                        + VcpuText.vcpu(vcpu)
                        + " against a quota of "
                        + VcpuText.vcpu(q.value())));
          }
        });
    var categories = categories(pool);
    if (categories.contains("g") && categories.contains("p")) {
      for (CapacityType ct : capacityTypes(pool)) {
        QuotaValue g = quotas.get(new QuotaBucket.Key(QuotaBucket.G_VT, ct));
        if (g != null && g.value() < SMALL_G_QUOTA) {
          findings.add(
              new PoolFinding(
                  pool.name(),
                  PoolFinding.WARNING,
                  "categories g and p share this pool while the G and VT "
                      + ct.display()
                      + " quota is only "
                      + VcpuText.vcpu(g.value())
                      + ": Karpenter may pick G types first and exhaust it (one g6e.48xlarge needs"
                      + " 192 vCPU); split g and p into separate pools or raise the quota"));
        }
      }
    }
  }

  /** Worst-case vCPU per (bucket, capacity type) the pool's limits allow. */
  Map<QuotaBucket.Key, Double> worstCase(NodePoolSpec pool) {
    var out = new TreeMap<QuotaBucket.Key, Double>();
    Optional<Double> gpuLimit = acceleratorLimit(pool);
    Optional<Double> cpuLimit = quantity(pool.limits().get("cpu"));
    var types = allowedTypes(pool);
    var byBucket = new TreeMap<QuotaBucket, Double>();
    for (InstanceSpec s : types) {
      if (s.accelerators() > 0) {
        byBucket.merge(s.bucket(), s.vcpusPerAccelerator(), Math::max);
      }
    }
    for (CapacityType ct : capacityTypes(pool)) {
      byBucket.forEach(
          (bucket, ratio) -> {
            Double v = null;
            if (gpuLimit.isPresent()) {
              v = gpuLimit.get() * ratio;
            }
            if (cpuLimit.isPresent()) {
              v = v == null ? cpuLimit.get() : Math.min(v, cpuLimit.get());
            }
            if (v != null) {
              out.put(new QuotaBucket.Key(bucket, ct), v);
            }
          });
    }
    return out;
  }

  /** Accelerated catalog types the pool's requirements allow. */
  List<InstanceSpec> allowedTypes(NodePoolSpec pool) {
    return InstanceCatalog.all().stream().filter(s -> allows(pool, s)).toList();
  }

  private static boolean allows(NodePoolSpec pool, InstanceSpec s) {
    for (var r : pool.requirements()) {
      String value =
          switch (r.key()) {
            case CATEGORY -> InstanceCatalog.category(s.family());
            case FAMILY -> s.family();
            case INSTANCE_TYPE -> s.instanceType();
            case GPU_COUNT -> Integer.toString(s.accelerators());
            default -> null;
          };
      if (value == null) {
        continue;
      }
      boolean ok =
          switch (r.operator()) {
            case "In" -> r.values().contains(value);
            case "NotIn" -> !r.values().contains(value);
            case "Gt" -> numeric(value) > numeric(first(r.values()));
            case "Lt" -> numeric(value) < numeric(first(r.values()));
            case "DoesNotExist" -> false;
            default -> true;
          };
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** Karpenter's default is on-demand when the pool says nothing about capacity types. */
  static Set<CapacityType> capacityTypes(NodePoolSpec pool) {
    for (var r : pool.requirements()) {
      if (CAPACITY_TYPE.equals(r.key()) && "In".equals(r.operator())) {
        var set = EnumSet.noneOf(CapacityType.class);
        r.values().forEach(v -> CapacityType.parse(v).ifPresent(set::add));
        return set;
      }
    }
    return EnumSet.of(CapacityType.ON_DEMAND);
  }

  static Set<String> categories(NodePoolSpec pool) {
    var out = new java.util.TreeSet<String>();
    for (var s : new NodePoolAnalyzer().allowedTypes(pool)) {
      out.add(InstanceCatalog.category(s.family()));
    }
    return out;
  }

  /** Accelerated category prefixes (EC2): every type of these categories has an accelerator. */
  static final Set<String> ACCELERATED_CATEGORIES = acceleratedCategories();

  /** The category letters of the catalog's accelerated families: p, g, gr, vt, trn, inf, dl. */
  private static Set<String> acceleratedCategories() {
    var out = new java.util.TreeSet<String>();
    for (InstanceSpec s : InstanceCatalog.all()) {
      out.add(InstanceCatalog.category(s.family()));
    }
    return Set.copyOf(out);
  }

  /**
   * The pool can only launch accelerated types: it requires a GPU count above 0, a GPU name or
   * manufacturer, or restricts category, family or instance type to accelerated ones.
   */
  static boolean isGpuPool(NodePoolSpec pool) {
    if (requiresAccelerators(pool)) {
      return true;
    }
    for (var r : pool.requirements()) {
      if (r.key().startsWith("karpenter.k8s.aws/instance-gpu-")
          && !GPU_COUNT.equals(r.key())
          && ("Exists".equals(r.operator()) || "In".equals(r.operator()))) {
        return true;
      }
      if (!"In".equals(r.operator()) || r.values().isEmpty()) {
        continue;
      }
      boolean all =
          switch (r.key()) {
            case CATEGORY -> ACCELERATED_CATEGORIES.containsAll(r.values());
            case FAMILY ->
                r.values().stream()
                    .allMatch(f -> ACCELERATED_CATEGORIES.contains(InstanceCatalog.category(f)));
            case INSTANCE_TYPE ->
                r.values().stream()
                    .allMatch(
                        t ->
                            ACCELERATED_CATEGORIES.contains(
                                InstanceCatalog.category(InstanceCatalog.family(t))));
            default -> false;
          };
      if (all) {
        return true;
      }
    }
    return false;
  }

  private static boolean requiresAccelerators(NodePoolSpec pool) {
    return pool.requirements().stream()
        .anyMatch(
            r ->
                GPU_COUNT.equals(r.key())
                    && (("Gt".equals(r.operator()) && numeric(first(r.values())) >= 0)
                        || ("In".equals(r.operator())
                            && r.values().stream().noneMatch("0"::equals))));
  }

  private static Optional<Double> acceleratorLimit(NodePoolSpec pool) {
    double total = 0;
    boolean any = false;
    for (String res : ACCELERATOR_RESOURCES) {
      var q = quantity(pool.limits().get(res));
      if (q.isPresent()) {
        total += q.get();
        any = true;
      }
    }
    return any ? Optional.of(total) : Optional.empty();
  }

  private static String acceleratorLimitText(NodePoolSpec pool) {
    var parts = new ArrayList<String>();
    for (String res : new java.util.TreeSet<>(ACCELERATOR_RESOURCES)) {
      if (pool.limits().containsKey(res)) {
        parts.add(res + ": " + pool.limits().get(res));
      }
    }
    return String.join(", ", parts);
  }

  /** A Kubernetes quantity as a number ("64", "1000m", "2k"); empty when absent or unreadable. */
  static Optional<Double> quantity(String text) {
    if (text == null || text.isBlank()) {
      return Optional.empty();
    }
    var m =
        java.util.regex.Pattern.compile("(\\d+(?:\\.\\d+)?)(m|k|M|G|Ki|Mi|Gi)?")
            .matcher(text.trim());
    if (!m.matches()) {
      return Optional.empty();
    }
    double v = Double.parseDouble(m.group(1));
    String unit = m.group(2) == null ? "" : m.group(2);
    return Optional.of(
        switch (unit) {
          case "m" -> v / 1000;
          case "k" -> v * 1e3;
          case "M" -> v * 1e6;
          case "G" -> v * 1e9;
          case "Ki" -> v * 1024;
          case "Mi" -> v * 1024 * 1024;
          case "Gi" -> v * 1024 * 1024 * 1024;
          default -> v;
        });
  }

  private static String first(List<String> values) {
    return values.isEmpty() ? "0" : values.get(0);
  }

  private static double numeric(String v) {
    try {
      return Double.parseDouble(v);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
