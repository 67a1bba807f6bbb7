package io.gpufleet.cost;

import io.gpufleet.core.config.ConfigException;
import java.math.BigDecimal;
import java.util.Locale;

/**
 * How a node's cost is split between the pods on it; what no pod requested is idle.
 *
 * <p>The node's cost is divided into a GPU, a CPU and a memory pool by weight; each pool goes to
 * pods in proportion to the resource-hours they requested out of the node's allocatable
 * resource-hours. A node without accelerators gives its GPU weight to CPU and memory proportionally
 * (half and half when both are 0).
 *
 * <ul>
 *   <li>{@code gpu} (default): GPU 1, CPU 0, memory 0. On a GPU node the accelerators are why the
 *       node exists and most of its price, and CPU and memory are sized to feed them; charging by
 *       GPU request makes a team's cost the GPU-hours it held, and the idle row equals the
 *       unrequested GPU-hours at the node's price, the same figure as the split-independent idle
 *       GPU cost KPI, so the two never disagree. CPU-only pods on GPU nodes (DaemonSets, data
 *       loaders) are charged nothing under it; choose a weighted rule to charge them.
 *   <li>{@code cpu-memory}: CPU 0.5, memory 0.5, GPUs ignored (what CPU-centric tools do).
 *   <li>{@code weighted:gpu=W,cpu=W,memory=W}: any weights that add up to 1, e.g. {@code
 *       weighted:gpu=0.9,cpu=0.05,memory=0.05}.
 * </ul>
 */
public record AllocationRule(String name, BigDecimal gpu, BigDecimal cpu, BigDecimal memory) {

  public static final AllocationRule GPU =
      new AllocationRule("gpu", BigDecimal.ONE, BigDecimal.ZERO, BigDecimal.ZERO);

  public static AllocationRule parse(String text) {
    String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    if (t.isEmpty() || t.equals("gpu")) {
      return GPU;
    }
    if (t.equals("cpu-memory")) {
      return new AllocationRule(
          "cpu-memory", BigDecimal.ZERO, new BigDecimal("0.5"), new BigDecimal("0.5"));
    }
    if (!t.startsWith("weighted:")) {
      throw new ConfigException(
          "COST_ALLOCATION_RULE='"
              + text
              + "' is not gpu, cpu-memory or weighted:gpu=W,cpu=W,memory=W");
    }
    BigDecimal g = BigDecimal.ZERO;
    BigDecimal c = BigDecimal.ZERO;
    BigDecimal m = BigDecimal.ZERO;
    for (String part : t.substring("weighted:".length()).split(",")) {
      String[] kv = part.split("=", 2);
      if (kv.length != 2) {
        throw new ConfigException("COST_ALLOCATION_RULE: '" + part + "' is not RESOURCE=WEIGHT");
      }
      BigDecimal w;
      try {
        w = new BigDecimal(kv[1].trim());
      } catch (NumberFormatException e) {
        throw new ConfigException("COST_ALLOCATION_RULE: weight '" + kv[1] + "' is not a number");
      }
      if (w.signum() < 0) {
        throw new ConfigException("COST_ALLOCATION_RULE: weight of " + kv[0] + " is negative");
      }
      switch (kv[0].trim()) {
        case "gpu" -> g = w;
        case "cpu" -> c = w;
        case "memory", "mem" -> m = w;
        default ->
            throw new ConfigException(
                "COST_ALLOCATION_RULE: unknown resource '" + kv[0] + "' (gpu, cpu, memory)");
      }
    }
    if (g.add(c).add(m).compareTo(BigDecimal.ONE) != 0) {
      throw new ConfigException(
          "COST_ALLOCATION_RULE: weights add up to " + g.add(c).add(m) + ", not 1");
    }
    return new AllocationRule(
        "weighted:gpu="
            + g.toPlainString()
            + ",cpu="
            + c.toPlainString()
            + ",memory="
            + m.toPlainString(),
        g,
        c,
        m);
  }

  /** One sentence for the report header. */
  public String describe() {
    return "Node cost is split "
        + pct(gpu)
        + " by GPU, "
        + pct(cpu)
        + " by CPU and "
        + pct(memory)
        + " by memory requests (resource-hours requested / allocatable resource-hours); what no pod"
        + " requested is idle. Nodes without accelerators split the GPU share over CPU and memory."
        + " Cost per GPU-hour and idle GPU cost are whole-node figures, independent of this rule.";
  }

  private static String pct(BigDecimal w) {
    return w.movePointRight(2).stripTrailingZeros().toPlainString() + " %";
  }
}
