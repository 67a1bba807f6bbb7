package io.gpufleet.cost.model;

import java.time.Instant;

/**
 * An EC2 instance from DescribeInstances. {@code stoppedAt} is when it left the running state
 * (parsed from the state transition reason) for stopped or terminated instances, else null.
 */
public record Ec2Instance(
    String instanceId,
    String instanceType,
    String zone,
    Lifecycle lifecycle,
    Instant launchTime,
    String state,
    Instant stoppedAt,
    String nodePool,
    String nodeGroup) {

  public boolean gone() {
    return switch (state) {
      case "shutting-down", "terminated", "stopping", "stopped" -> true;
      default -> false;
    };
  }
}
