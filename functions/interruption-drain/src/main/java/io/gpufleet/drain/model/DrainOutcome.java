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
    return toBuilder().region(eventRegion).build();
  }

  /** This outcome with the lifecycle action's report attached. */
  public DrainOutcome withLifecycle(LifecycleReport report) {
    return toBuilder().lifecycle(report).build();
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
    return toBuilder().status(newStatus).message(newMessage).build();
  }

  /** This outcome with the checkpoint timelines of its opted-in pods (none: left out). */
  public DrainOutcome withCheckpoints(List<CheckpointReport> reports) {
    return toBuilder().checkpoints(reports.isEmpty() ? null : reports).build();
  }

  /** This outcome with what replacement before removal did (null: left out). */
  public DrainOutcome withReplacement(ReplacementReport report) {
    return toBuilder().replacement(report).build();
  }

  /** A builder holding every field of this outcome, to change some and keep the rest. */
  public Builder toBuilder() {
    var b = new Builder();
    b.eventId = eventId;
    b.kind = kind;
    b.instanceId = instanceId;
    b.cluster = cluster;
    b.node = node;
    b.status = status;
    b.message = message;
    b.actions = actions;
    b.receivedAt = receivedAt;
    b.deadline = deadline;
    b.deadlineMet = deadlineMet;
    b.timings = timings;
    b.podsEvicted = podsEvicted;
    b.podsNotEvicted = podsNotEvicted;
    b.podsSkipped = podsSkipped;
    b.gracePeriodCapped = gracePeriodCapped;
    b.lifecycle = lifecycle;
    b.planned = planned;
    b.region = region;
    b.checkpoints = checkpoints;
    b.replacement = replacement;
    return b;
  }

  /**
   * An outcome of {@code eventId} for one instance, the fields every outcome has set and every
   * other one empty: no actions, no pods, no deadline or timings (what {@link #simple} returns).
   */
  public static Builder builder(
      String eventId,
      String kind,
      String instanceId,
      String cluster,
      String node,
      Status status,
      String message,
      Instant receivedAt) {
    var b = new Builder();
    b.eventId = eventId;
    b.kind = kind;
    b.instanceId = instanceId;
    b.cluster = cluster;
    b.node = node;
    b.status = status;
    b.message = message;
    b.actions = Set.of();
    b.receivedAt = receivedAt;
    b.podsEvicted = List.of();
    b.podsNotEvicted = List.of();
    b.podsSkipped = List.of();
    b.gracePeriodCapped = List.of();
    return b;
  }

  /** Sets the fields of an outcome one by one (the record has too many for one call to read). */
  public static final class Builder {
    private String eventId;
    private String kind;
    private String instanceId;
    private String cluster;
    private String node;
    private Status status;
    private String message;
    private Set<Action> actions;
    private Instant receivedAt;
    private Instant deadline;
    private Boolean deadlineMet;
    private Timings timings;
    private List<String> podsEvicted;
    private List<PodReport> podsNotEvicted;
    private List<PodReport> podsSkipped;
    private List<PodReport> gracePeriodCapped;
    private LifecycleReport lifecycle;
    private List<String> planned;
    private String region;
    private List<CheckpointReport> checkpoints;
    private ReplacementReport replacement;

    private Builder() {}

    public Builder status(Status value) {
      this.status = value;
      return this;
    }

    public Builder message(String value) {
      this.message = value;
      return this;
    }

    public Builder actions(Set<Action> value) {
      this.actions = value;
      return this;
    }

    /** The deadline and whether it was met (null: not known). */
    public Builder deadline(Instant value, Boolean met) {
      this.deadline = value;
      this.deadlineMet = met;
      return this;
    }

    public Builder timings(Timings value) {
      this.timings = value;
      return this;
    }

    /** What became of the pods: evicted, not evicted (with why), skipped, grace period capped. */
    public Builder pods(
        List<String> evicted,
        List<PodReport> notEvicted,
        List<PodReport> skipped,
        List<PodReport> capped) {
      this.podsEvicted = evicted;
      this.podsNotEvicted = notEvicted;
      this.podsSkipped = skipped;
      this.gracePeriodCapped = capped;
      return this;
    }

    public Builder lifecycle(LifecycleReport value) {
      this.lifecycle = value;
      return this;
    }

    public Builder planned(List<String> value) {
      this.planned = value;
      return this;
    }

    public Builder region(String value) {
      this.region = value;
      return this;
    }

    public Builder checkpoints(List<CheckpointReport> value) {
      this.checkpoints = value;
      return this;
    }

    public Builder replacement(ReplacementReport value) {
      this.replacement = value;
      return this;
    }

    public DrainOutcome build() {
      return new DrainOutcome(
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
          lifecycle,
          planned,
          region,
          checkpoints,
          replacement);
    }
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
    return builder(eventId, kind, instanceId, cluster, node, status, message, receivedAt).build();
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
    return builder(eventId, kind, instanceId, cluster, node, Status.DRY_RUN, message, receivedAt)
        .planned(List.copyOf(planned))
        .build();
  }
}
