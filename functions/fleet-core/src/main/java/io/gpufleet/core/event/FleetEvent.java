package io.gpufleet.core.event;

import java.time.Instant;
import java.util.List;

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

  /** A well-formed event that needs no action (another kind, or a state that does not matter). */
  record Unsupported(EventMeta meta, String why) implements FleetEvent {}
}
