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
   * An EC2 Auto Scaling lifecycle hook holds the instance in {@code Pending:Wait} (launch) or
   * {@code Terminating:Wait} (terminate) until someone calls CompleteLifecycleAction (by {@code
   * token}, or by instance id when the token is absent) or the hook times out. Delivered through
   * EventBridge or sent by Auto Scaling straight to an SQS queue; {@code continuation} is set when
   * this function resumes a drain it could not finish in one invocation.
   */
  record LifecycleAction(
      EventMeta meta,
      String instanceId,
      String transition,
      String autoScalingGroupName,
      String hookName,
      String token,
      String notificationMetadata,
      String origin,
      String destination,
      Continuation continuation)
      implements InstanceEvent {
    public static final String LAUNCHING = "autoscaling:EC2_INSTANCE_LAUNCHING";
    public static final String TERMINATING = "autoscaling:EC2_INSTANCE_TERMINATING";

    @Override
    public List<String> instanceIds() {
      return List.of(instanceId);
    }

    public boolean terminating() {
      return TERMINATING.equals(transition);
    }

    /** CompleteLifecycleAction needs the group and the hook; without them it can only drain. */
    public boolean completable() {
      return autoScalingGroupName != null && hookName != null;
    }

    /** The event id the hook was first delivered with (the drain's claim key). */
    public String originalEventId() {
      return continuation == null ? meta.id() : continuation.originalEventId();
    }

    /** The lifecycle event as first received, or the same event resumed for the next round. */
    public LifecycleAction resumed(EventMeta next, Continuation c) {
      return new LifecycleAction(
          next,
          instanceId,
          transition,
          autoScalingGroupName,
          hookName,
          token,
          notificationMetadata,
          origin,
          destination,
          c);
    }

    /**
     * Where a drain that outlives one invocation stands: the first delivery's id and receipt time,
     * which round this is (1 = the first follow-up) and how many heartbeats were sent so far.
     */
    public record Continuation(
        String originalEventId, int round, Instant firstReceived, int heartbeats) {}
  }

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
