package io.gpufleet.drain.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
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
    String region) {

  /** An outcome whose region is set later ({@link #withRegion}). */
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
        null);
  }

  /** The same outcome for the event's region (the envelope's {@code region}). */
  public DrainOutcome withRegion(String eventRegion) {
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
        eventRegion);
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
    REJECTED
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
}
