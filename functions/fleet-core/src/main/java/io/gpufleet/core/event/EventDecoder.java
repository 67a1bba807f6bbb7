package io.gpufleet.core.event;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.event.FleetEvent.AlarmMetric;
import io.gpufleet.core.event.FleetEvent.AlarmStateChange;
import io.gpufleet.core.event.FleetEvent.CapacityBlockExpiring;
import io.gpufleet.core.event.FleetEvent.CapacityReservationInterruption;
import io.gpufleet.core.event.FleetEvent.HealthScheduledChange;
import io.gpufleet.core.event.FleetEvent.InstanceStateChange;
import io.gpufleet.core.event.FleetEvent.RebalanceRecommendation;
import io.gpufleet.core.event.FleetEvent.SpotInterruption;
import io.gpufleet.core.event.FleetEvent.Unsupported;
import io.gpufleet.core.json.Json;
import java.time.Clock;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Decodes an EventBridge envelope into a {@link FleetEvent}. One parser per (source, detail-type),
 * registered in one table; unknown kinds become {@link Unsupported}; anything unreadable becomes a
 * {@link DecodeResult.Rejected} with the reason. Never throws.
 *
 * <p>A rejection is final (the event is acknowledged, never retried), so the decoder rejects only
 * what cannot be acted on and tolerates what AWS is known to send: an empty or missing {@code time}
 * (the receipt time is used), a Health {@code startTime} whose weekday does not match its date or
 * whose day is not zero-padded, unknown fields, instance states and instance actions it does not
 * know. Anything echoed from the payload into a reason is cut to {@value #ECHO_MAX} characters.
 */
public final class EventDecoder {

  /** Thrown by a detail parser when a required field is missing or malformed. */
  static final class InvalidEvent extends Exception {
    InvalidEvent(String message) {
      super(message);
    }
  }

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

  static final Pattern INSTANCE_ID = Pattern.compile("i-[0-9a-f]{8,17}");
  private static final Pattern RESERVATION_ID = Pattern.compile("cr-[0-9a-f]{8,17}");
  private static final Set<String> ALARM_STATES = Set.of("OK", "ALARM", "INSUFFICIENT_DATA");

  /** AWS Health: "Sat, 05 Jun 2016 15:10:09 GMT" with the weekday dropped before parsing. */
  private static final DateTimeFormatter RFC_1123_NO_WEEKDAY =
      DateTimeFormatter.ofPattern("d MMM yyyy HH:mm[:ss] zzz", Locale.ROOT);

  private static final DateTimeFormatter COMPACT_OFFSET =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss[.SSS]XX");
  private static final int MAX_PAYLOAD_BYTES = 256 * 1024;

  /** Every kind the decoder knows, in one table. */
  private static final Map<Kind, DetailParser> PARSERS =
      Map.ofEntries(
          Map.entry(new Kind("aws.ec2", SPOT_WARNING), EventDecoder::spotWarning),
          Map.entry(new Kind("aws.ec2", REBALANCE), EventDecoder::rebalance),
          Map.entry(new Kind("aws.ec2", STATE_CHANGE), EventDecoder::stateChange),
          Map.entry(new Kind("aws.health", HEALTH), EventDecoder::health),
          Map.entry(new Kind("aws.cloudwatch", ALARM), EventDecoder::alarm),
          Map.entry(new Kind("aws.autoscaling", LIFECYCLE_LAUNCH), LifecycleEvents::fromDetail),
          Map.entry(new Kind("aws.autoscaling", LIFECYCLE_TERMINATE), LifecycleEvents::fromDetail),
          Map.entry(new Kind(DRAIN_SOURCE, LIFECYCLE_CONTINUATION), LifecycleEvents::continuation),
          Map.entry(new Kind("aws.ec2", CR_INTERRUPTION), EventDecoder::capacityReservationWarning),
          Map.entry(
              new Kind("aws.ec2", CR_INTERRUPTION_VARIANT),
              EventDecoder::capacityReservationWarning),
          Map.entry(
              new Kind("aws.ec2", CAPACITY_BLOCK_EXPIRING), EventDecoder::capacityBlockExpiring),
          Map.entry(
              new Kind("aws.ec2", CAPACITY_BLOCK_EXPIRING_VARIANT),
              EventDecoder::capacityBlockExpiring),
          Map.entry(
              new Kind("aws.ec2", CAPACITY_BLOCK_DELIVERED), EventDecoder::capacityBlockDelivered),
          Map.entry(
              new Kind("aws.ec2", CAPACITY_BLOCK_DELIVERED_VARIANT),
              EventDecoder::capacityBlockDelivered));

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
    String id =
        root.has("id") || !root.has("customer_event_id")
            ? required(root, "id", "envelope")
            : required(root, "customer_event_id", "envelope");
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
    return new EventMeta(id, source, detailType, account, region, time, List.copyOf(resources));
  }

  /**
   * The instance is lost whatever the action says, so an unknown or missing {@code instance-action}
   * is kept as given (null when absent) and handled like {@code terminate}.
   */
  private static FleetEvent spotWarning(EventMeta meta, JsonNode detail) throws InvalidEvent {
    String instance = instanceId(detail);
    return new SpotInterruption(meta, instance, text(detail, "instance-action"));
  }

  private static FleetEvent capacityReservationWarning(EventMeta meta, JsonNode detail)
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

  private static FleetEvent capacityBlockExpiring(EventMeta meta, JsonNode detail)
      throws InvalidEvent {
    String reservation = reservationId(meta, detail);
    Instant end = instant(required(detail, "end-date", "detail"), "detail.end-date");
    return new CapacityBlockExpiring(meta, reservation, end, List.of());
  }

  private static FleetEvent capacityBlockDelivered(EventMeta meta, JsonNode detail) {
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
        if (RESERVATION_ID.matcher(tail).matches()) {
          return tail;
        }
      }
      throw new InvalidEvent(
          "detail field 'capacity-reservation-id' is missing and no resource names a reservation");
    }
    if (!RESERVATION_ID.matcher(id).matches()) {
      throw new InvalidEvent(
          "detail.capacity-reservation-id " + echo(id) + " is not a Capacity Reservation id");
    }
    return id;
  }

  private static FleetEvent rebalance(EventMeta meta, JsonNode detail) throws InvalidEvent {
    return new RebalanceRecommendation(meta, instanceId(detail));
  }

  /** Every state is kept (unknown ones too); the drain acts only on the actionable ones. */
  private static FleetEvent stateChange(EventMeta meta, JsonNode detail) throws InvalidEvent {
    String instance = instanceId(detail);
    String state = text(detail, "state");
    return new InstanceStateChange(
        meta, instance, state == null ? "" : state.trim().toLowerCase(Locale.ROOT));
  }

  /**
   * Acts, like NTH and Karpenter, on EC2 scheduled changes only. Only the instances are required: a
   * missing {@code startTime} means act now, a missing {@code eventArn} falls back to the envelope
   * id, and an unreadable {@code endTime} is dropped (nothing depends on it).
   */
  private static FleetEvent health(EventMeta meta, JsonNode detail) throws InvalidEvent {
    String service = text(detail, "service");
    String category = text(detail, "eventTypeCategory");
    String typeCode = text(detail, "eventTypeCode");
    String arn = text(detail, "eventArn");
    if (!"EC2".equals(service) || !"scheduledChange".equals(category)) {
      return new Unsupported(
          meta, "AWS Health " + echo(service) + "/" + echo(category) + " events need no action");
    }
    if (arn == null || arn.isBlank()) {
      arn = meta.id();
    }
    String startText = text(detail, "startTime");
    Instant start =
        startText == null || startText.isBlank()
            ? null
            : lenientInstant(startText, "detail.startTime");
    Instant end = null;
    String endText = text(detail, "endTime");
    if (endText != null && !endText.isBlank()) {
      try {
        end = lenientInstant(endText, "detail.endTime");
      } catch (InvalidEvent ignored) {
        // not needed to act
      }
    }
    Set<String> ids = new LinkedHashSet<>();
    JsonNode entities = detail.get("affectedEntities");
    if (entities != null && entities.isArray()) {
      for (JsonNode entity : entities) {
        String value = text(entity, "entityValue");
        if (value == null) {
          continue;
        }
        // a bare id in the NTH/Karpenter samples, an instance ARN in AWS's retirement sample
        String tail = value.substring(value.lastIndexOf('/') + 1);
        if (INSTANCE_ID.matcher(tail).matches()) {
          ids.add(tail);
        }
      }
    }
    for (String resource : meta.resources()) {
      String tail = resource.substring(resource.lastIndexOf('/') + 1);
      if (INSTANCE_ID.matcher(tail).matches()) {
        ids.add(tail);
      } else if (INSTANCE_ID.matcher(resource).matches()) {
        ids.add(resource);
      }
    }
    if (ids.isEmpty()) {
      throw new InvalidEvent(
          "AWS Health event "
              + echo(arn)
              + " names no EC2 instance in affectedEntities or resources");
    }
    return new HealthScheduledChange(meta, arn, typeCode, start, end, List.copyOf(ids));
  }

  private static FleetEvent alarm(EventMeta meta, JsonNode detail) throws InvalidEvent {
    String name = required(detail, "alarmName", "detail");
    JsonNode state = detail.get("state");
    if (state == null || !state.isObject()) {
      throw new InvalidEvent("detail field 'state' must be an object");
    }
    String value = required(state, "value", "detail.state");
    if (!ALARM_STATES.contains(value)) {
      throw new InvalidEvent(
          "detail.state.value " + echo(value) + " is not one of " + sorted(ALARM_STATES));
    }
    String stamp = text(state, "timestamp");
    Instant stateTime =
        stamp == null || stamp.isBlank() ? meta.time() : instant(stamp, "detail.state.timestamp");
    JsonNode previous = detail.get("previousState");
    String previousValue = previous == null ? null : text(previous, "value");
    JsonNode configuration = detail.path("configuration");
    var metrics = new ArrayList<AlarmMetric>();
    JsonNode list = configuration.get("metrics");
    if (list != null && list.isArray()) {
      for (JsonNode m : list) {
        JsonNode metric = m.path("metricStat").path("metric");
        var dims = new LinkedHashMap<String, String>();
        metric
            .path("dimensions")
            .properties()
            .forEach(e -> dims.put(e.getKey(), e.getValue().asText()));
        metrics.add(
            new AlarmMetric(
                text(m, "id"),
                text(metric, "namespace"),
                text(metric, "name"),
                Map.copyOf(dims),
                text(m.path("metricStat"), "stat"),
                text(m, "expression")));
      }
    }
    return new AlarmStateChange(
        meta,
        name,
        value,
        previousValue,
        stateTime,
        text(state, "reason"),
        text(configuration, "description"),
        List.copyOf(metrics));
  }

  static String instanceId(JsonNode detail) throws InvalidEvent {
    String id = required(detail, "instance-id", "detail");
    if (!INSTANCE_ID.matcher(id).matches()) {
      throw new InvalidEvent("detail.instance-id " + echo(id) + " is not an EC2 instance id");
    }
    return id;
  }

  private static String id(JsonNode root) {
    String id = text(root, "id");
    return id == null && root.has("customer_event_id") ? text(root, "customer_event_id") : id;
  }

  /**
   * A payload string quoted for a reason, cut to {@value #ECHO_MAX} characters (with the length of
   * what was cut) so a hostile or broken payload cannot flood logs and outcomes.
   */
  public static String echo(String value) {
    if (value == null) {
      return "null";
    }
    String clean = value.replaceAll("\\p{Cntrl}", "?");
    if (clean.length() <= ECHO_MAX) {
      return "'" + clean + "'";
    }
    return "'" + clean.substring(0, ECHO_MAX) + "...' (" + clean.length() + " characters)";
  }

  static String required(JsonNode node, String field, String where) throws InvalidEvent {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      throw new InvalidEvent(where + " field '" + field + "' is missing");
    }
    if (!value.isTextual() || value.asText().isBlank()) {
      throw new InvalidEvent(where + " field '" + field + "' must be a non-empty string");
    }
    return value.asText();
  }

  static String text(JsonNode node, String field) {
    JsonNode value = node == null ? null : node.get(field);
    return value == null || value.isNull() || !value.isValueNode() ? null : value.asText();
  }

  /**
   * {@link #instant} that also reads RFC 1123 dates whose weekday does not match the date (AWS
   * Health and NTH's sample send "Sat, 05 Jun 2016", a Sunday) or whose day is not zero-padded: the
   * weekday is redundant, so it is dropped and the rest parsed.
   */
  static Instant lenientInstant(String text, String what) throws InvalidEvent {
    try {
      return instant(text, what);
    } catch (InvalidEvent strict) {
      int comma = text.indexOf(',');
      String rest = comma >= 0 ? text.substring(comma + 1).trim() : text.trim();
      try {
        return ZonedDateTime.parse(rest, RFC_1123_NO_WEEKDAY).toInstant();
      } catch (DateTimeParseException e) {
        throw strict;
      }
    }
  }

  /** RFC 3339 (EventBridge envelopes) or RFC 1123 ("Wed, 05 Apr 2023 12:00:00 GMT", AWS Health). */
  static Instant instant(String text, String what) throws InvalidEvent {
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException ignored) {
      // fall through to the other accepted forms
    }
    try {
      return ZonedDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
    } catch (DateTimeParseException ignored) {
      // fall through
    }
    try {
      // CloudWatch alarm state timestamps: "2026-01-05T10:15:30.123+0000"
      return ZonedDateTime.parse(text, COMPACT_OFFSET).toInstant();
    } catch (DateTimeParseException ignored) {
      // fall through
    }
    try {
      return ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
    } catch (DateTimeParseException e) {
      throw new InvalidEvent(what + " " + echo(text) + " is not an RFC 3339 or RFC 1123 timestamp");
    }
  }

  private static String sorted(Set<String> values) {
    return values.stream().sorted().toList().toString();
  }

  private static String firstLine(Exception e) {
    String message =
        e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
    return message == null ? e.getClass().getSimpleName() : message.lines().findFirst().orElse("");
  }
}
