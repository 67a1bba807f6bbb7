package io.gpufleet.core.event;

import static io.gpufleet.core.event.EventFields.echo;
import static io.gpufleet.core.event.EventFields.instanceId;
import static io.gpufleet.core.event.EventFields.lenientInstant;
import static io.gpufleet.core.event.EventFields.text;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.event.FleetEvent.CapacityBlockExpiring;
import io.gpufleet.core.event.FleetEvent.CapacityReservationInterruption;
import io.gpufleet.core.event.FleetEvent.InstanceStateChange;
import io.gpufleet.core.event.FleetEvent.RebalanceRecommendation;
import io.gpufleet.core.event.FleetEvent.SpotInterruption;
import io.gpufleet.core.event.FleetEvent.Unsupported;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/** The parsers of the {@code aws.ec2} kinds (registered in {@link EventDecoder}'s table). */
final class Ec2EventParsers {
  /**
   * AWS documents a Capacity Block's instances to start terminating 10 minutes after its expiration
   * warning; an end date that cannot be read is taken to be that far from the event.
   */
  static final Duration WARNING_TO_TERMINATION = Duration.ofMinutes(10);

  private Ec2EventParsers() {}

  /**
   * The instance is lost whatever the action says, so an unknown or missing {@code instance-action}
   * is kept as given (null when absent) and handled like {@code terminate}.
   */
  static FleetEvent spotWarning(EventMeta meta, JsonNode detail) throws InvalidEvent {
    String instance = instanceId(detail);
    return new SpotInterruption(meta, instance, text(detail, "instance-action"));
  }

  static FleetEvent capacityReservationWarning(EventMeta meta, JsonNode detail)
      throws InvalidEvent {
    String instance = instanceId(detail);
    String when = text(detail, "instance-termination-time");
    Instant terminates =
        when == null || when.isBlank()
            ? null
            : lenientInstant(when, "detail.instance-termination-time");
    return new CapacityReservationInterruption(
        meta, instance, text(detail, "instance-action"), terminates);
  }

  /**
   * The block's instances are lost whatever {@code end-date} says, so a missing or unreadable one
   * is replaced by the documented timing (terminations start 10 minutes after the warning) and the
   * outcome says so.
   */
  static FleetEvent capacityBlockExpiring(EventMeta meta, JsonNode detail) throws InvalidEvent {
    String reservation = reservationId(meta, detail);
    String text = text(detail, "end-date");
    Instant end;
    try {
      end = lenientInstant(text == null ? "" : text, "detail.end-date");
    } catch (InvalidEvent e) {
      end = meta.time().plus(WARNING_TO_TERMINATION).plus(CapacityBlockExpiring.TERMINATION_LEAD);
      meta =
          meta.withCaveat(
              "end-date "
                  + (text == null ? "missing" : echo(text) + " unreadable")
                  + ": terminations taken to start at event time + "
                  + WARNING_TO_TERMINATION.toMinutes()
                  + " minutes");
    }
    return new CapacityBlockExpiring(meta, reservation, end, List.of());
  }

  static FleetEvent capacityBlockDelivered(EventMeta meta, JsonNode detail) {
    String reservation = text(detail, "capacity-reservation-id");
    return new Unsupported(
        meta,
        "Capacity Block "
            + (reservation == null ? "" : echo(reservation) + " ")
            + "delivered: its capacity is ready, nothing to drain");
  }

  /** detail.capacity-reservation-id, else the id at the end of the reservation ARN in resources. */
  private static String reservationId(EventMeta meta, JsonNode detail) throws InvalidEvent {
    String id = text(detail, "capacity-reservation-id");
    if (id == null || id.isBlank()) {
      for (String r : meta.resources()) {
        String tail = r.substring(r.lastIndexOf('/') + 1);
        if (EventFields.RESERVATION_ID.matcher(tail).matches()) {
          return tail;
        }
      }
      throw new InvalidEvent(
          "detail field 'capacity-reservation-id' is missing and no resource names a reservation");
    }
    if (!EventFields.RESERVATION_ID.matcher(id).matches()) {
      throw new InvalidEvent(
          "detail.capacity-reservation-id " + echo(id) + " is not a Capacity Reservation id");
    }
    return id;
  }

  static FleetEvent rebalance(EventMeta meta, JsonNode detail) throws InvalidEvent {
    return new RebalanceRecommendation(meta, instanceId(detail));
  }

  /** Every state is kept (unknown ones too); the drain acts only on the actionable ones. */
  static FleetEvent stateChange(EventMeta meta, JsonNode detail) throws InvalidEvent {
    String instance = instanceId(detail);
    String state = text(detail, "state");
    return new InstanceStateChange(
        meta, instance, state == null ? "" : state.trim().toLowerCase(Locale.ROOT));
  }
}
