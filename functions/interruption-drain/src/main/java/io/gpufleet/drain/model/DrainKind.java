package io.gpufleet.drain.model;

import io.gpufleet.core.event.FleetEvent;
import java.util.Arrays;
import java.util.Optional;

/** The event kinds this function acts on, with the names used in configuration and outcomes. */
public enum DrainKind {
  SPOT_INTERRUPTION("spot-interruption"),
  REBALANCE("rebalance"),
  STATE_CHANGE("state-change"),
  HEALTH_SCHEDULED("health-scheduled"),
  /** EC2 Auto Scaling terminate lifecycle hook (scale-in, instance refresh, rebalancing). */
  ASG_TERMINATE("asg-terminate"),
  /** EC2 Auto Scaling launch lifecycle hook: completed once the node is Ready. */
  ASG_LAUNCH("asg-launch"),
  CAPACITY_RESERVATION_INTERRUPTION("capacity-reservation-interruption"),
  CAPACITY_BLOCK_EXPIRING("capacity-block-expiring");

  private final String label;

  DrainKind(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }

  public static Optional<DrainKind> byLabel(String label) {
    return Arrays.stream(values()).filter(k -> k.label.equals(label)).findFirst();
  }

  public static DrainKind of(FleetEvent.InstanceEvent event) {
    return switch (event) {
      case FleetEvent.SpotInterruption s -> SPOT_INTERRUPTION;
      case FleetEvent.RebalanceRecommendation r -> REBALANCE;
      case FleetEvent.InstanceStateChange c -> STATE_CHANGE;
      case FleetEvent.HealthScheduledChange h -> HEALTH_SCHEDULED;
      case FleetEvent.LifecycleAction l -> l.terminating() ? ASG_TERMINATE : ASG_LAUNCH;
      case FleetEvent.CapacityReservationInterruption c -> CAPACITY_RESERVATION_INTERRUPTION;
      case FleetEvent.CapacityBlockExpiring b -> CAPACITY_BLOCK_EXPIRING;
    };
  }

  /** Every label, comma-separated, for error messages. */
  public static String labels() {
    return String.join(", ", Arrays.stream(values()).map(DrainKind::label).toList());
  }

  @Override
  public String toString() {
    return label;
  }
}
