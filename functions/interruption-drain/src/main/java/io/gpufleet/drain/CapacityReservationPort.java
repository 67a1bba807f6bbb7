package io.gpufleet.drain;

import java.util.List;

/** The EC2 call the drain makes for Capacity Blocks, and no other. */
public interface CapacityReservationPort {
  /**
   * Ids of the instances EC2 runs (pending, running, stopping, shutting-down) in the capacity
   * reservation. Throws {@link ReservationLookupException} when EC2 cannot answer.
   */
  List<String> runningInstances(String capacityReservationId);

  /** EC2 did not answer (throttled, unreachable, denied): the event is retried. */
  final class ReservationLookupException extends RuntimeException {
    public ReservationLookupException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
