package io.gpufleet.scenario;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.event.DecodeResult;
import io.gpufleet.core.event.EventDecoder;
import io.gpufleet.core.event.FleetEvent;
import io.gpufleet.drain.model.DrainKind;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.UUID;

/**
 * Event envelopes built the way EventBridge delivers them, for a manual drain ({@code gpufleet
 * drain}) and for the benchmarks: they go through the very same decode and plan path as AWS's.
 */
public final class SyntheticEvents {
  private SyntheticEvents() {}

  /** An EventBridge envelope for a manual drain, so the very same decode/plan path runs. */
  public static String manualDrain(
      DrainKind kind, String instance, Instant now, Duration deadline) {
    String id = "cli-" + UUID.randomUUID();
    String time = now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
    String envelope =
        "{\"version\":\"0\",\"id\":\"%s\",\"detail-type\":\"%s\",\"source\":\"%s\",\"account\":\"000000000000\","
            + "\"time\":\"%s\",\"region\":\"local\",\"resources\":[],\"detail\":%s}";
    return switch (kind) {
      case SPOT_INTERRUPTION ->
          envelope.formatted(
              id,
              EventDecoder.SPOT_WARNING,
              "aws.ec2",
              time,
              "{\"instance-id\":\"" + instance + "\",\"instance-action\":\"terminate\"}");
      case REBALANCE ->
          envelope.formatted(
              id,
              EventDecoder.REBALANCE,
              "aws.ec2",
              time,
              "{\"instance-id\":\"" + instance + "\"}");
      case STATE_CHANGE ->
          envelope.formatted(
              id,
              EventDecoder.STATE_CHANGE,
              "aws.ec2",
              time,
              "{\"instance-id\":\"" + instance + "\",\"state\":\"stopping\"}");
      case HEALTH_SCHEDULED -> {
        var rfc = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);
        yield envelope.formatted(
            id,
            EventDecoder.HEALTH,
            "aws.health",
            time,
            "{\"eventArn\":\"arn:aws:health:local::event/EC2/MANUAL/"
                + id
                + "\",\"service\":\"EC2\","
                + "\"eventTypeCode\":\"AWS_EC2_INSTANCE_STOP_SCHEDULED\",\"eventTypeCategory\":\"scheduledChange\","
                + "\"startTime\":\""
                + rfc.format(now.plus(deadline))
                + "\","
                + "\"affectedEntities\":[{\"entityValue\":\""
                + instance
                + "\"}]}");
      }
      case ASG_TERMINATE, ASG_LAUNCH ->
          throw new ConfigException(
              "drain: --kind "
                  + kind
                  + " comes only from an Auto Scaling lifecycle hook; a manual drain uses"
                  + " spot-interruption, rebalance, state-change or health-scheduled");
      case CAPACITY_RESERVATION_INTERRUPTION ->
          envelope.formatted(
              id,
              EventDecoder.CR_INTERRUPTION,
              "aws.ec2",
              time,
              "{\"instance-id\":\""
                  + instance
                  + "\",\"instance-action\":\"terminate\",\"instance-termination-time\":\""
                  + now.plus(deadline).truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                  + "\"}");
      case CAPACITY_BLOCK_EXPIRING ->
          throw new IllegalArgumentException("a Capacity Block event names no instance");
    };
  }

  /**
   * A spot warning for {@code instance} with the event id {@code id}, as EventBridge delivers it.
   */
  public static String spotJson(String id, String instance, Instant time) {
    return manualDrain(DrainKind.SPOT_INTERRUPTION, instance, time, Duration.ofSeconds(120))
        .replaceFirst("\"id\":\"cli-[^\"]+\"", "\"id\":\"" + id + "\"");
  }

  /** {@link #spotJson} decoded as the drain decodes it. */
  public static FleetEvent spot(String id, String instance, Instant time) {
    return decode(spotJson(id, instance, time));
  }

  /** An event of {@code kind} for {@code instance} with the event id {@code id}, decoded. */
  public static FleetEvent event(DrainKind kind, String id, String instance, Instant time) {
    return decode(
        manualDrain(kind, instance, time, Duration.ofSeconds(120))
            .replaceFirst("\"id\":\"cli-[^\"]+\"", "\"id\":\"" + id + "\""));
  }

  private static FleetEvent decode(String json) {
    if (new EventDecoder().decodeString(json) instanceof DecodeResult.Decoded d) {
      return d.event();
    }
    throw new IllegalStateException("benchmark event did not decode: " + json);
  }
}
