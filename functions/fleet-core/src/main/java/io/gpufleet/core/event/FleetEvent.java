package io.gpufleet.core.event;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Every trigger payload a GPU Fleet Ops function understands, decoded. */
public sealed interface FleetEvent {
  EventMeta meta();

  /** Events that name EC2 instances to act on. */
  sealed interface InstanceEvent extends FleetEvent {
    List<String> instanceIds();
  }

  /** EC2 will reclaim the instance about two minutes after {@code meta().time()}. */
  record SpotInterruption(EventMeta meta, String instanceId, String instanceAction)
      implements InstanceEvent {
    @Override
    public List<String> instanceIds() {
      return List.of(instanceId);
    }
  }

  /** Elevated interruption risk, no deadline. */
  record RebalanceRecommendation(EventMeta meta, String instanceId) implements InstanceEvent {
    @Override
    public List<String> instanceIds() {
      return List.of(instanceId);
    }
  }

  /**
   * The instance changed state. Only stopping, stopped, shutting-down and terminated call for
   * action ({@link #actionable()}); any other state, documented or not, is kept so the outcome can
   * name the instance.
   */
  record InstanceStateChange(EventMeta meta, String instanceId, String state)
      implements InstanceEvent {
    public static final java.util.Set<String> ACTIONABLE =
        java.util.Set.of("stopping", "stopped", "shutting-down", "terminated");

    @Override
    public List<String> instanceIds() {
      return List.of(instanceId);
    }

    public boolean actionable() {
      return ACTIONABLE.contains(state);
    }
  }

  /**
   * The owner of an interruptible Capacity Reservation reclaims it: EC2 terminates the instance at
   * {@code terminationTime} (about two minutes after the event; null when the event does not say).
   * {@code detailType} keeps which of the documented spellings arrived.
   */
  record CapacityReservationInterruption(
      EventMeta meta, String instanceId, String instanceAction, Instant terminationTime)
      implements InstanceEvent {
    @Override
    public List<String> instanceIds() {
      return List.of(instanceId);
    }
  }

  /**
   * A Capacity Block for ML is ending: EC2 starts terminating its instances 30 minutes before
   * {@code endDate}. The event names the reservation, not the instances; {@code instanceIds} is
   * empty as decoded and filled by the drain once it has found the block's nodes ({@link
   * #withInstances}).
   */
  record CapacityBlockExpiring(
      EventMeta meta, String capacityReservationId, Instant endDate, List<String> instanceIds)
      implements InstanceEvent {
    /** EC2 begins terminating a block's instances this long before its end date. */
    public static final java.time.Duration TERMINATION_LEAD = java.time.Duration.ofMinutes(30);

    public CapacityBlockExpiring withInstances(List<String> ids) {
      return new CapacityBlockExpiring(meta, capacityReservationId, endDate, List.copyOf(ids));
    }

    /** When EC2 starts terminating the block's instances. */
    public Instant terminationsStart() {
      return endDate.minus(TERMINATION_LEAD);
    }
  }

  /**
   * AWS Health scheduled change for EC2 (retirement, stop, reboot maintenance). {@code startTime}
   * is null when the event gives none (act at once); {@code eventArn} falls back to the envelope id
   * and {@code eventTypeCode} may be null.
   */
  record HealthScheduledChange(
      EventMeta meta,
      String eventArn,
      String eventTypeCode,
      Instant startTime,
      Instant endTime,
      List<String> instanceIds)
      implements InstanceEvent {}

  /**
   * A CloudWatch alarm changed state. {@code stateTime} is when it did (with the alarm name, the
   * key that stays the same when EventBridge delivers the change twice); {@code metrics} are the
   * alarm's metric-stat and expression queries.
   */
  record AlarmStateChange(
      EventMeta meta,
      String alarmName,
      String state,
      String previousState,
      Instant stateTime,
      String reason,
      String description,
      List<AlarmMetric> metrics)
      implements FleetEvent {

    /** The first metric-stat query in this namespace ("AWS/Usage"), if the alarm has one. */
    public java.util.Optional<AlarmMetric> metricIn(String namespace) {
      return metrics.stream().filter(m -> namespace.equals(m.namespace())).findFirst();
    }
  }

  /**
   * One query of an alarm: a metric stat (namespace, name, dimensions, stat) or an expression such
   * as {@code m1 / SERVICE_QUOTA(m1) * 100}.
   */
  record AlarmMetric(
      String id,
      String namespace,
      String name,
      Map<String, String> dimensions,
      String stat,
      String expression) {}

  /** A well-formed event that needs no action (another kind, or a state that does not matter). */
  record Unsupported(EventMeta meta, String why) implements FleetEvent {}
}
