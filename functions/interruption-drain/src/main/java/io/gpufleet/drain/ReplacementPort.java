package io.gpufleet.drain;

import java.util.Map;
import java.util.Optional;

/** The Auto Scaling calls of replacement before removal, and no others. */
public interface ReplacementPort {
  /** An Auto Scaling group as replacement needs it. */
  record Group(
      String name,
      int min,
      int max,
      int desired,
      boolean capacityRebalance,
      Map<String, String> tags,
      java.util.List<String> instances) {}

  /** The group that holds {@code instanceId}, if any (Karpenter nodes are in none). */
  Optional<Group> groupOf(String instanceId);

  Optional<Group> group(String name);

  /** SetDesiredCapacity (HonorCooldown false); a {@code ValidationError} throws {@link Refused}. */
  void setDesired(String group, int desired) throws Refused;

  /** TerminateInstanceInAutoScalingGroup with ShouldDecrementDesiredCapacity=true. */
  void terminateDecrementing(String instanceId) throws Refused;

  void tag(String group, String key, String value);

  void untag(String group, String key);

  /** Auto Scaling refused the call (ValidationError, access denied): nothing was changed. */
  final class Refused extends Exception {
    public Refused(String message) {
      super(message);
    }
  }
}
