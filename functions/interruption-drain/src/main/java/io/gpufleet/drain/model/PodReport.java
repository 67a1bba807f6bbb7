package io.gpufleet.drain.model;

import com.fasterxml.jackson.annotation.JsonInclude;

/** What happened to one pod. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PodReport(
    String pod,
    Status status,
    String reason,
    int attempts,
    Long gracePeriodRequested,
    Long gracePeriodGranted,
    boolean critical) {

  public enum Status {
    /** Eviction accepted and the pod is gone. */
    EVICTED,
    /** The pod was already gone (404) before or while evicting. */
    GONE,
    /** Eviction accepted but the pod still existed at the deadline. */
    STILL_TERMINATING,
    /** A PodDisruptionBudget kept refusing (429) until the deadline. */
    BLOCKED,
    /** More than one PodDisruptionBudget selects the pod (500). */
    CONFIG_ERROR,
    /** The API server kept failing for this pod. */
    FAILED,
    /** Deleted with grace period 0 at the deadline (force-delete enabled). */
    FORCE_DELETED,
    /** Not evicted on purpose (mirror, terminal, DaemonSet). */
    SKIPPED
  }

  public boolean madeIt() {
    return status == Status.EVICTED || status == Status.GONE || status == Status.FORCE_DELETED;
  }

  public boolean graceCapped() {
    return gracePeriodRequested != null
        && gracePeriodGranted != null
        && gracePeriodGranted < gracePeriodRequested;
  }

  public PodReport with(Status newStatus, String newReason) {
    return new PodReport(
        pod, newStatus, newReason, attempts, gracePeriodRequested, gracePeriodGranted, critical);
  }
}
