package io.gpufleet.core.k8s;

/**
 * The pod annotations of the checkpoint-aware drain, declared once: the drain, its confinement
 * spec's test, the simulated training workloads and the docs use these names.
 */
public final class CheckpointAnnotations {
  /** Set by the workload to opt in: the longest it wants for a checkpoint, e.g. {@code "90s"}. */
  public static final String CHECKPOINT = "gpufleet.io/checkpoint";

  /** Set by the drain: the interruption kind (e.g. {@code spot-interruption}). */
  public static final String KIND = "gpufleet.io/interruption-kind";

  /** Set by the drain for kinds with a deadline: when the pod will be gone, RFC 3339. */
  public static final String DEADLINE = "gpufleet.io/interruption-deadline";

  /** Set by the workload once its checkpoint is written (any value; a time is customary). */
  public static final String DONE = "gpufleet.io/checkpoint-done";

  private CheckpointAnnotations() {}
}
