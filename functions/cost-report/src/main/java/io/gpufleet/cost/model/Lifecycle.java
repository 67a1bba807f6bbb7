package io.gpufleet.cost.model;

import java.util.Locale;
import java.util.Optional;

/** How an instance is bought; decides its price and its FOCUS PricingCategory. */
public enum Lifecycle {
  ON_DEMAND("on-demand", "On-Demand"),
  SPOT("spot", "Dynamic"),
  /** Launched into an On-Demand Capacity Reservation (billed at the On-Demand rate). */
  RESERVED("reserved", "Commitment-Based"),
  /** Capacity Blocks for ML (price not in the public price list). */
  CAPACITY_BLOCK("capacity-block", "Commitment-Based");

  private final String label;
  private final String pricingCategory;

  Lifecycle(String label, String pricingCategory) {
    this.label = label;
    this.pricingCategory = pricingCategory;
  }

  public String label() {
    return label;
  }

  public String pricingCategory() {
    return pricingCategory;
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
