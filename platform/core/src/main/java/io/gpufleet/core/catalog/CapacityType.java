package io.gpufleet.core.catalog;

import java.util.Locale;
import java.util.Optional;

/** How an instance is bought; each has its own EC2 vCPU quota per bucket. */
public enum CapacityType {
  ON_DEMAND("on-demand", "OnDemand", "On-Demand"),
  SPOT("spot", "Spot", "Spot");

  private final String label;
  private final String usageClassSuffix;
  private final String display;

  CapacityType(String label, String usageClassSuffix, String display) {
    this.label = label;
    this.usageClassSuffix = usageClassSuffix;
    this.display = display;
  }

  /** As Karpenter spells it ({@code karpenter.sh/capacity-type}): spot, on-demand. */
  public String label() {
    return label;
  }

  /** The second half of the CloudWatch AWS/Usage {@code Class} dimension (P/OnDemand, P/Spot). */
  public String usageClassSuffix() {
    return usageClassSuffix;
  }

  /** For people: On-Demand, Spot. */
  public String display() {
    return display;
  }

  /** Accepts spot, on-demand, ondemand, on_demand, ON_DEMAND (any case). */
  public static Optional<CapacityType> parse(String text) {
    if (text == null) {
      return Optional.empty();
    }
    return switch (text.trim().toLowerCase(Locale.ROOT).replace("_", "-")) {
      case "spot" -> Optional.of(SPOT);
      case "on-demand", "ondemand", "od" -> Optional.of(ON_DEMAND);
      default -> Optional.empty();
    };
  }
}
