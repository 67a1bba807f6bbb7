package io.gpufleet.drain.model;

/** What may be done to a node: taint (NoSchedule + LB exclusion label), cordon, drain. */
public enum Action {
  TAINT,
  CORDON,
  DRAIN
}
