package io.gpufleet.drain.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** One structured record per (event, instance): logged, counted, published and returned. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DrainOutcome(
    String eventId,
    String kind,
    String instanceId,
    String cluster,
    String node,
    Status status,
    String message,
    Set<Action> actions,
    Instant receivedAt,
    Instant deadline,
    Boolean deadlineMet,
    Timings timings,
    List<String> podsEvicted,
    List<PodReport> podsNotEvicted,
    List<PodReport> podsSkipped,
    List<PodReport> gracePeriodCapped,
    LifecycleReport lifecycle,
    List<String> planned,
    String region,
    List<CheckpointReport> checkpoints,
    ReplacementReport replacement) {

  /**
   * Actions in their declared order (an EnumSet), however the set was made: read back from JSON it
   * would be a HashSet whose order changes from one JVM run to the next.
   */
  public DrainOutcome {
    if (actions != null) {
      actions =
          Collections.unmodifiableSet(
              actions.isEmpty() ? EnumSet.noneOf(Action.class) : EnumSet.copyOf(actions));
    }
  }

  /** The outcome of an event that involves no lifecycle hook and is no dry run. */
  public DrainOutcome(
      String eventId,
      String kind,
      String instanceId,
      String cluster,
      String node,
      Status status,
      String message,
      Set<Action> actions,
      Instant receivedAt,
      Instant deadline,
      Boolean deadlineMet,
      Timings timings,
      List<String> podsEvicted,
      List<PodReport> podsNotEvicted,
      List<PodReport> podsSkipped,
      List<PodReport> gracePeriodCapped) {
    this(
        eventId,
        kind,
        instanceId,
        cluster,
        node,
        status,
        message,
        actions,
        receivedAt,
        deadline,
        deadlineMet,
        timings,
        podsEvicted,
        podsNotEvicted,
        podsSkipped,
        gracePeriodCapped,
        null,
        null,
        null,
        null,
        null);
  }

  /**
   * What happened to the Auto Scaling lifecycle action: {@code result} is the
   * CompleteLifecycleAction result sent (null while the drain goes on or when nothing was sent),
   * {@code round} 0 for the first invocation, {@code nextCheck} when the follow-up is due.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record LifecycleReport(
      String autoScalingGroup,
      String hook,
      String transition,
      String result,
      int heartbeats,
      int round,
      Instant firstReceived,
      Instant nextCheck,
      String note) {}

  /** The same outcome for the event's region (the envelope's {@code region}). */
  public DrainOutcome withRegion(String eventRegion) {
    return rebuilt(status, message, lifecycle, planned, eventRegion);
  }

  /** This outcome with the lifecycle action's report attached. */
  public DrainOutcome withLifecycle(LifecycleReport report) {
    return rebuilt(status, message, report, planned, region);
  }

  /** This outcome with what the decoder had to assume (see {@code EventMeta#caveats}) said. */
  public DrainOutcome withCaveats(List<String> caveats) {
    if (caveats == null || caveats.isEmpty()) {
      return this;
    }
    String said = String.join("; ", caveats);
    return with(status, message == null || message.isBlank() ? said : message + "; " + said);
  }

  /** This outcome with another status and message (e.g. a drain that goes on next round). */
  public DrainOutcome with(Status newStatus, String newMessage) {
    return rebuilt(newStatus, newMessage, lifecycle, planned, region);
  }

  /** This outcome with the checkpoint timelines of its opted-in pods (none: left out). */
  public DrainOutcome withCheckpoints(List<CheckpointReport> reports) {
    return rebuilt(
        status,
        message,
        lifecycle,
        planned,
        region,
        reports.isEmpty() ? null : reports,
        replacement);
  }

  /** This outcome with what replacement before removal did (null: left out). */
  public DrainOutcome withReplacement(ReplacementReport report) {
    return rebuilt(status, message, lifecycle, planned, region, checkpoints, report);
  }

  private DrainOutcome rebuilt(
      Status newStatus,
      String newMessage,
      LifecycleReport newLifecycle,
      List<String> newPlanned,
      String newRegion) {
    return rebuilt(
        newStatus, newMessage, newLifecycle, newPlanned, newRegion, checkpoints, replacement);
  }

  /** This outcome with the fields that change after it is made replaced, the rest kept. */
  private DrainOutcome rebuilt(
      Status newStatus,
      String newMessage,
      LifecycleReport newLifecycle,
      List<String> newPlanned,
      String newRegion,
      List<CheckpointReport> newCheckpoints,
      ReplacementReport newReplacement) {
    return new DrainOutcome(
        eventId,
        kind,
        instanceId,
        cluster,
        node,
        newStatus,
        newMessage,
        actions,
        receivedAt,
        deadline,
        deadlineMet,
        timings,
        podsEvicted,
        podsNotEvicted,
        podsSkipped,
        gracePeriodCapped,
        newLifecycle,
        newPlanned,
        newRegion,
        newCheckpoints,
        newReplacement);
  }

  public enum Status {
    /** Every evictable pod is gone. */
    DRAINED,
    /** Some pods did not make it; {@code podsNotEvicted} names each with its reason. */
    PARTIAL,
    /** Tainted and/or cordoned, no drain configured for this kind. */
    CORDONED,
    /** The same event id was already handled (or is being handled) for this node. */
    DUPLICATE,
    /**
     * No node of this cluster has that instance as providerID (another cluster's instance, or one
     * whose node is already gone).
     */
    NOT_IN_CLUSTER,
    /** The node was deleted while the drain was claiming it. */
    NODE_GONE,
    /** Nothing to do for this kind (configuration or event says so). */
    NO_ACTION,
    /** The payload could not be understood; acknowledged, not retried. */
    REJECTED,
    /**
     * A lifecycle-hook drain goes on in a follow-up invocation (heartbeat kept alive); the final
     * outcome of that drain comes later.
     */
    DRAINING,
    /** A launch hook waits for its node to be Ready in a follow-up invocation. */
    WAITING,
    /** A lifecycle action completed without a drain (launch: its node is Ready or never came). */
    HOOK_COMPLETED,
    /** The node matched an exclusion (label selector, or Karpenter's own interruption handling). */
    EXCLUDED,
    /** Dry run: {@code planned} lists what would have been done; nothing was changed. */
    DRY_RUN
  }

  /** Milliseconds from receipt to each milestone (null when not reached). */
  public record Timings(Long cordonedMs, Long evictionsIssuedMs, Long allGoneMs) {}

  public boolean acted() {
    return status == Status.DRAINED || status == Status.PARTIAL || status == Status.CORDONED;
  }

  public static DrainOutcome simple(
      String eventId,
      String kind,
      String instanceId,
      String cluster,
      String node,
      Status status,
      String message,
      Instant receivedAt) {
    return new DrainOutcome(
        eventId,
        kind,
        instanceId,
        cluster,
        node,
        status,
        message,
        Set.of(),
        receivedAt,
        null,
        null,
        null,
        List.of(),
        List.of(),
        List.of(),
        List.of());
  }

  /** A dry run's outcome: the planned actions, in order, and nothing done. */
  public static DrainOutcome dryRun(
      String eventId,
      String kind,
      String instanceId,
      String cluster,
      String node,
      String message,
      Instant receivedAt,
      List<String> planned) {
    return simple(eventId, kind, instanceId, cluster, node, Status.DRY_RUN, message, receivedAt)
        .rebuilt(Status.DRY_RUN, message, null, List.copyOf(planned), null);
  }
}
