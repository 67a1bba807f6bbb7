package io.gpufleet.cost.focus;

import io.gpufleet.cost.model.ReportWindow;
import java.time.Duration;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * Where a window's FOCUS file goes, and which windows get one. The prefix is stable (Athena's table
 * projects its partitions over it): {@code
 * focus/billing_period=YYYY-MM/account=ID/cluster=NAME/<window id>.parquet}, the billing period
 * being the month the window starts in. A rerun of the same window writes the same key, so it
 * replaces the file. Only whole UTC hours and whole UTC days get a file (the scheduled last-hour
 * and last-day reports, or an explicit window of that shape): those never overlap, so a query
 * summing the files counts each instance-hour once; a 24h or month-to-date report overlaps them and
 * is left out.
 */
public final class FocusExport {
  public static final String PREFIX = "focus/";

  private FocusExport() {}

  /** The key of the window's file, or empty when the window is not a whole UTC hour or day. */
  public static Optional<String> key(String accountId, String cluster, ReportWindow w) {
    if (!covered(w)) {
      return Optional.empty();
    }
    return Optional.of(
        PREFIX
            + "billing_period="
            + YearMonth.from(w.start().atOffset(ZoneOffset.UTC))
            + "/account="
            + accountId
            + "/cluster="
            + cluster
            + "/"
            + w.id()
            + ".parquet");
  }

  static boolean covered(ReportWindow w) {
    Instant s = w.start();
    Duration d = w.length();
    if (d.equals(Duration.ofHours(1))) {
      return s.equals(s.truncatedTo(ChronoUnit.HOURS));
    }
    return d.equals(Duration.ofDays(1)) && s.equals(s.truncatedTo(ChronoUnit.DAYS));
  }

  /** An AWS account id: 12 digits. */
  public static boolean isAccountId(String s) {
    return s != null && s.matches("\\d{12}");
  }
}
