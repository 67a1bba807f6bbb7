package io.gpufleet.core.event;

import static io.gpufleet.core.event.EventFields.instant;
import static io.gpufleet.core.event.EventFields.required;
import static io.gpufleet.core.event.EventFields.text;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.event.FleetEvent.Unsupported;
import io.gpufleet.core.json.Json;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Decodes an EventBridge envelope into a {@link FleetEvent}. One parser per (source, detail-type),
 * registered in one table; unknown kinds become {@link Unsupported}; anything unreadable becomes a
 * {@link DecodeResult.Rejected} with the reason. Never throws.
 *
 * <p>A rejection is final (the event is acknowledged, never retried), so the decoder rejects only
 * what cannot be acted on and tolerates what AWS is known to send: an empty or missing {@code time}
 * (the receipt time is used), a Health {@code startTime} whose weekday does not match its date or
 * whose day is not zero-padded, unknown fields, instance states and instance actions it does not
 * know, a minimal body without {@code id} (NTH's v2 test messages: the dedupe key is then the
 * instance, the kind and the time). Anything echoed from the payload into a reason is cut to
 * {@value #ECHO_MAX} characters. The parsers live per family ({@link Ec2EventParsers}, {@link
 * HealthAndAlarmParsers}, {@link LifecycleEvents}); the account check comes before any of them.
 */
public final class EventDecoder {

  @FunctionalInterface
  interface DetailParser {
    FleetEvent parse(EventMeta meta, JsonNode detail) throws InvalidEvent;
  }

  record Kind(String source, String detailType) {}

  public static final String SPOT_WARNING = "EC2 Spot Instance Interruption Warning";
  public static final String REBALANCE = "EC2 Instance Rebalance Recommendation";
  public static final String STATE_CHANGE = "EC2 Instance State-change Notification";
  public static final String HEALTH = "AWS Health Event";
  public static final String ALARM = "CloudWatch Alarm State Change";
  public static final String LIFECYCLE_LAUNCH = "EC2 Instance-launch Lifecycle Action";
  public static final String LIFECYCLE_TERMINATE = "EC2 Instance-terminate Lifecycle Action";

  /** The drain's own follow-up of a lifecycle drain (see {@link LifecycleEvents}). */
  public static final String LIFECYCLE_CONTINUATION = "GPU Fleet Lifecycle Drain Continuation";

  public static final String DRAIN_SOURCE = "gpufleet.interruption-drain";

  /** Interruptible Capacity Reservation reclaimed (the spelling Karpenter matches). */
  public static final String CR_INTERRUPTION =
      "EC2 Capacity Reservation Instance Interruption Warning";

  /** The spelling one copy of the EC2 user guide uses (UNCONFIRMED whether EC2 sends it). */
  public static final String CR_INTERRUPTION_VARIANT =
      "EC2 Interruptible Capacity Reservation Instance Interruption Warning";

  /** Capacity Block end warning, as the EventBridge EC2 event reference spells it. */
  public static final String CAPACITY_BLOCK_EXPIRING = "Capacity Block Expiration Warning";

  /** ...and as the EC2 user guide's Capacity Blocks page spells it. */
  public static final String CAPACITY_BLOCK_EXPIRING_VARIANT =
      "Capacity Block Reservation Expiration Warning";

  public static final String CAPACITY_BLOCK_DELIVERED = "Capacity Block Delivered";
  public static final String CAPACITY_BLOCK_DELIVERED_VARIANT =
      "Capacity Block Reservation Delivered";

  /** Longest piece of a payload echoed into a rejection reason. */
  public static final int ECHO_MAX = 80;

  private static final int MAX_PAYLOAD_BYTES = 256 * 1024;

  /** Every kind the decoder knows, in one table. */
  private static final Map<Kind, DetailParser> PARSERS =
      Map.ofEntries(
          Map.entry(new Kind("aws.ec2", SPOT_WARNING), Ec2EventParsers::spotWarning),
          Map.entry(new Kind("aws.ec2", REBALANCE), Ec2EventParsers::rebalance),
          Map.entry(new Kind("aws.ec2", STATE_CHANGE), Ec2EventParsers::stateChange),
          Map.entry(new Kind("aws.health", HEALTH), HealthAndAlarmParsers::health),
          Map.entry(new Kind("aws.cloudwatch", ALARM), HealthAndAlarmParsers::alarm),
          Map.entry(new Kind("aws.autoscaling", LIFECYCLE_LAUNCH), LifecycleEvents::fromDetail),
          Map.entry(new Kind("aws.autoscaling", LIFECYCLE_TERMINATE), LifecycleEvents::fromDetail),
          Map.entry(new Kind(DRAIN_SOURCE, LIFECYCLE_CONTINUATION), LifecycleEvents::continuation),
          Map.entry(
              new Kind("aws.ec2", CR_INTERRUPTION), Ec2EventParsers::capacityReservationWarning),
          Map.entry(
              new Kind("aws.ec2", CR_INTERRUPTION_VARIANT),
              Ec2EventParsers::capacityReservationWarning),
          Map.entry(
              new Kind("aws.ec2", CAPACITY_BLOCK_EXPIRING), Ec2EventParsers::capacityBlockExpiring),
          Map.entry(
              new Kind("aws.ec2", CAPACITY_BLOCK_EXPIRING_VARIANT),
              Ec2EventParsers::capacityBlockExpiring),
          Map.entry(
              new Kind("aws.ec2", CAPACITY_BLOCK_DELIVERED),
              Ec2EventParsers::capacityBlockDelivered),
          Map.entry(
              new Kind("aws.ec2", CAPACITY_BLOCK_DELIVERED_VARIANT),
              Ec2EventParsers::capacityBlockDelivered));

  private final Clock clock;
  private final String defaultRegion;
  private final AccountFilter accounts;

  /** Receipt time (for events that arrive without one) from the system clock. */
  public EventDecoder() {
    this(Clock.systemUTC());
  }

  public EventDecoder(Clock clock) {
    this(clock, null);
  }

  /**
   * {@code defaultRegion} (the function's own, {@code AWS_REGION}) stands in for an envelope
   * without {@code region}: EventBridge delivers an event in the region it happened in.
   */
  public EventDecoder(Clock clock, String defaultRegion) {
    this(clock, defaultRegion, AccountFilter.ANY);
  }

  /** ...and refusing, whatever their kind, events of accounts {@code accounts} does not accept. */
  public EventDecoder(Clock clock, String defaultRegion, AccountFilter accounts) {
    this.clock = clock;
    this.defaultRegion = defaultRegion == null || defaultRegion.isBlank() ? null : defaultRegion;
    this.accounts = accounts;
  }

  /** Whether this decoder has a parser for the envelope's (source, detail-type). */
  public static boolean knows(String source, String detailType) {
    var kind = new Kind(source, detailType);
    return PARSERS.containsKey(kind);
  }

  public DecodeResult decode(byte[] payload) {
    if (payload == null || payload.length == 0) {
      return new DecodeResult.Rejected("empty payload", null);
    }
    if (payload.length > MAX_PAYLOAD_BYTES) {
      return new DecodeResult.Rejected(
          "payload of " + payload.length + " bytes exceeds the 256 KiB EventBridge limit", null);
    }
    JsonNode root;
    try {
      root = Json.readPayload(payload);
    } catch (java.io.IOException e) {
      return new DecodeResult.Rejected("not JSON: " + echo(firstLine(e)), null);
    }
    return decode(root);
  }

  public DecodeResult decode(JsonNode root) {
    if (root == null || !root.isObject()) {
      return new DecodeResult.Rejected("payload is not a JSON object", null);
    }
    String id = id(root);
    String region = text(root, "region");
    if (region == null || region.isBlank()) {
      region = defaultRegion;
    }
    try {
      EventMeta meta = meta(root, clock.instant(), region);
      var refused = accounts.refusal(meta.account());
      if (refused.isPresent()) {
        return new DecodeResult.Rejected(refused.get(), id, region);
      }
      var kind = new Kind(meta.source(), meta.detailType());
      DetailParser parser = PARSERS.get(kind);
      if (parser == null) {
        return new DecodeResult.Decoded(
            new Unsupported(
                meta,
                "no handler for source "
                    + echo(meta.source())
                    + " detail-type "
                    + echo(meta.detailType())));
      }
      JsonNode detail = root.get("detail");
      if (detail == null || !detail.isObject()) {
        throw new InvalidEvent("envelope field 'detail' must be an object");
      }
      return new DecodeResult.Decoded(parser.parse(meta, detail));
    } catch (InvalidEvent e) {
      return new DecodeResult.Rejected(e.getMessage(), id, region);
    } catch (RuntimeException e) {
      return new DecodeResult.Rejected(
          "unreadable event: " + echo(e.getClass().getSimpleName() + ": " + e.getMessage()),
          id,
          region);
    }
  }

  public DecodeResult decodeString(String payload) {
    return decode(
        payload == null ? null : payload.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /**
   * The envelope. {@code detail_type} and {@code customer_event_id} are accepted in place of {@code
   * detail-type} and {@code id}: the EC2 user guide's Capacity Block samples spell them so.
   */
  private static EventMeta meta(JsonNode root, Instant receivedAt, String region)
      throws InvalidEvent {
    JsonNode idNode = root.has("id") || !root.has("customer_event_id") ? root.get("id") : null;
    if (idNode != null && !idNode.isNull() && !idNode.isTextual()) {
      throw new InvalidEvent("envelope field 'id' must be a string");
    }
    String id = id(root);
    String source = required(root, "source", "envelope");
    String detailType =
        root.has("detail-type") || !root.has("detail_type")
            ? required(root, "detail-type", "envelope")
            : required(root, "detail_type", "envelope");
    JsonNode timeNode = root.get("time");
    if (timeNode != null && !timeNode.isNull() && !timeNode.isTextual()) {
      throw new InvalidEvent("envelope field 'time' must be a string");
    }
    String timeText = text(root, "time");
    Instant time =
        timeText == null || timeText.isBlank()
            ? receivedAt
            : instant(timeText, "envelope field 'time'");
    String account = text(root, "account");
    List<String> resources = new ArrayList<>();
    JsonNode res = root.get("resources");
    if (res != null && !res.isNull()) {
      if (res.isTextual()) {
        // the EC2 user guide's interruptible-reservation sample prints one ARN as a string
        resources.add(res.asText());
      } else if (!res.isArray()) {
        throw new InvalidEvent("envelope field 'resources' must be an array");
      } else {
        res.forEach(r -> resources.add(r.asText()));
      }
    }
    if (id == null) {
      id = fallbackId(root.path("detail"), source, detailType, timeText == null ? time : timeText);
    }
    return new EventMeta(id, source, detailType, account, region, time, List.copyOf(resources));
  }

  private static String id(JsonNode root) {
    String id = EventFields.nonBlank(root, "id");
    return id == null ? EventFields.nonBlank(root, "customer_event_id") : id;
  }

  /**
   * The dedupe key of an event without {@code id}: what it is about (instance, reservation or
   * Health event), its kind and its time, so a repeat of the same body is still a repeat.
   */
  private static String fallbackId(JsonNode detail, String source, String type, Object time) {
    String subject = null;
    for (String field :
        List.of("instance-id", "EC2InstanceId", "capacity-reservation-id", "eventArn")) {
      subject = subject != null ? subject : EventFields.nonBlank(detail, field);
    }
    if (subject == null) {
      var ids = new ArrayList<String>();
      detail.path("affectedEntities").forEach(e -> ids.add(e.path("entityValue").asText()));
      subject = String.join(",", ids);
    }
    return "no-id:" + source + "/" + type + "/" + subject + "@" + time;
  }

  /**
   * A payload string quoted for a reason, cut to {@value #ECHO_MAX} characters (with the length of
   * what was cut) so a hostile or broken payload cannot flood logs and outcomes.
   */
  public static String echo(String value) {
    return EventFields.echo(value);
  }

  private static String firstLine(Exception e) {
    String message =
        e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
    return message == null ? e.getClass().getSimpleName() : message.lines().findFirst().orElse("");
  }
}
