package io.gpufleet.cost.model;

import java.util.Locale;
import java.util.Optional;

/**
 * How an instance is bought, as EC2 and the node labels say; how each is billed (and its FOCUS
 * PricingCategory) is {@code io.gpufleet.cost.NodeBilling}'s.
 */
public enum Lifecycle {
  ON_DEMAND("on-demand"),
  SPOT("spot"),
  /**
   * Launched into an On-Demand Capacity Reservation: billed at the On-Demand rate, and Savings
   * Plans and Reserved Instances apply to it like to any On-Demand usage.
   */
  RESERVED("reserved"),
  /** Capacity Blocks for ML (price not in the public price list). */
  CAPACITY_BLOCK("capacity-block");

  private final String label;

  Lifecycle(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }

  /**
   * From a node label: Karpenter's {@code karpenter.sh/capacity-type} (spot, on-demand, reserved)
   * or EKS managed node groups' {@code eks.amazonaws.com/capacityType} (SPOT, ON_DEMAND,
   * CAPACITY_BLOCK).
   */
  public static Optional<Lifecycle> fromLabel(String value) {
    if (value == null) {
      return Optional.empty();
    }
    return switch (value.toLowerCase(Locale.ROOT).replace('_', '-')) {
      case "spot" -> Optional.of(SPOT);
      case "on-demand" -> Optional.of(ON_DEMAND);
      case "reserved" -> Optional.of(RESERVED);
      case "capacity-block" -> Optional.of(CAPACITY_BLOCK);
      default -> Optional.empty();
    };
  }
}
