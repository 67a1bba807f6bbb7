package io.gpufleet.drain.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.List;

/**
 * What replacement before removal did for the drained instance's Auto Scaling group: {@code action}
 * is what the raise did (RAISED, ALREADY_RAISED, AT_MAX, NOT_OPTED_IN, CAPACITY_REBALANCE,
 * NO_GROUP, FAILED), {@code desiredBefore}/{@code desiredAfter} the group's desired capacity around
 * the raise, {@code replacementReadyAt} when the group's serving capacity was back (its other
 * instances' nodes Ready, replacement included), {@code inferenceHeld} the inference replicas whose
 * eviction waited for it and {@code heldUntil} what ended the wait, and {@code terminatedAt} when
 * the old instance was terminated with ShouldDecrementDesiredCapacity (null when it was not: {@code
 * note} says why).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ReplacementReport(
    String group,
    String action,
    Integer desiredBefore,
    Integer desiredAfter,
    Instant raisedAt,
    Instant replacementReadyAt,
    List<String> inferenceHeld,
    String heldUntil,
    Instant terminatedAt,
    String note) {

  /** True when the group was raised for this instance (now or by an earlier delivery). */
  public boolean raised() {
    return "RAISED".equals(action) || "ALREADY_RAISED".equals(action);
  }
}
