package io.gpufleet.core.event;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Pattern;

/** Reading the fields of an event: required strings, ids, the timestamp forms AWS sends. */
final class EventFields {
  static final Pattern INSTANCE_ID = Pattern.compile("i-[0-9a-f]{8,17}");
  static final Pattern RESERVATION_ID = Pattern.compile("cr-[0-9a-f]{8,17}");

  /** AWS Health: "Sat, 05 Jun 2016 15:10:09 GMT" with the weekday dropped before parsing. */
  private static final DateTimeFormatter RFC_1123_NO_WEEKDAY =
      DateTimeFormatter.ofPattern("d MMM yyyy HH:mm[:ss] zzz", Locale.ROOT);

  private static final DateTimeFormatter COMPACT_OFFSET =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss[.SSS]XX");

  private EventFields() {}

  static String instanceId(JsonNode detail) throws InvalidEvent {
    String id = required(detail, "instance-id", "detail");
    if (!INSTANCE_ID.matcher(id).matches()) {
      throw new InvalidEvent("detail.instance-id " + echo(id) + " is not an EC2 instance id");
    }
    return id;
  }

  /**
   * A payload string quoted for a reason, cut to {@value EventDecoder#ECHO_MAX} characters (with
   * the length of what was cut) so a hostile or broken payload cannot flood logs and outcomes.
   */
  static String echo(String value) {
    if (value == null) {
      return "null";
    }
    String clean = value.replaceAll("\\p{Cntrl}", "?");
    if (clean.length() <= EventDecoder.ECHO_MAX) {
      return "'" + clean + "'";
    }
    return "'"
        + clean.substring(0, EventDecoder.ECHO_MAX)
        + "...' ("
        + clean.length()
        + " characters)";
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

  /** {@link #text}, with a blank value read as absent. */
  static String nonBlank(JsonNode node, String field) {
    String value = text(node, field);
    return value == null || value.isBlank() ? null : value;
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
}
