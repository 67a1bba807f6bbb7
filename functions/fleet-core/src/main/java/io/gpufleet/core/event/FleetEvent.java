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

  /** The instance is stopping, stopped, shutting down or terminated. */
  record InstanceStateChange(EventMeta meta, String instanceId, String state)
      implements InstanceEvent {
    @Override
    public List<String> instanceIds() {
      return List.of(instanceId);
    }
  }

  /** AWS Health scheduled change for EC2 (retirement, stop, reboot maintenance). */
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
