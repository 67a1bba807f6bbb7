package io.gpufleet.schedule.model;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One line of the outcome: what happened (or would happen) to an object, with the managed values
 * before and after.
 */
public record Change(
    String kind,
    String namespace,
    String name,
    String rule,
    Action action,
    JsonNode before,
    JsonNode after,
    String note,
    Result result,
    String error) {

  public enum Action {
    /** Set the window's value (the original is remembered on the object). */
    APPLY,
    /** The window ended: the remembered original is put back. */
    RESTORE,
    /** Somebody else changed the object since gpufleet did: left as it is, bookkeeping dropped. */
    RELEASE,
    /** Somebody else changed the object during the current window: left alone until it ends. */
    HOLD,
    /** Not touched (excluded, new, scaled by an HPA or ScaledObject, ...). */
    SKIP
  }

  public enum Result {
    APPLIED,
    DRY_RUN,
    FAILED,
    NONE
  }

  public boolean isWrite() {
    return action == Action.APPLY || action == Action.RESTORE || action == Action.RELEASE;
  }

  public Change withResult(Result r, String err) {
    return new Change(kind, namespace, name, rule, action, before, after, note, r, err);
  }
}
