package io.gpufleet.cost.model;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * A report window [start, end) and the spec it came from ("24h", "last-day", "mtd", ...). {@code
 * id} names it in S3 keys.
 */
public record ReportWindow(String spec, Instant start, Instant end) {
  private static final DateTimeFormatter COMPACT =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmm'Z'").withZone(ZoneOffset.UTC);

  public ReportWindow {
    if (!end.isAfter(start)) {
      throw new IllegalArgumentException("window end " + end + " is not after start " + start);
    }
  }

  public Duration length() {
    return Duration.between(start, end);
  }

  /** e.g. {@code 24h_20261129T0200Z_20261130T0200Z}: stable for a given window. */
  public String id() {
    return spec.replaceAll("[^A-Za-z0-9-]", "-")
        + "_"
        + COMPACT.format(start)
        + "_"
        + COMPACT.format(end);
  }

  /** The overlap of [from, to) with this window, or null when there is none. */
  public Instant[] clip(Instant from, Instant to) {
    Instant a = from.isAfter(start) ? from : start;
    Instant b = to == null || to.isAfter(end) ? end : to;
    return b.isAfter(a) ? new Instant[] {a, b} : null;
  }
}
