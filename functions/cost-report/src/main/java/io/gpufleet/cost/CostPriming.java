package io.gpufleet.cost;

import io.gpufleet.core.aws.Ec2Xml;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.SnapStartPriming;
import io.gpufleet.core.outcome.PowertoolsMetricsAdapter;
import io.gpufleet.core.pricing.StaticPrices;
import io.gpufleet.core.s3.S3Rest;
import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.Ec2Instance;
import io.gpufleet.cost.model.InventorySnapshot;
import io.gpufleet.cost.model.Lifecycle;
import io.gpufleet.cost.model.ReportWindow;
import io.gpufleet.cost.render.ReportHtml;
import io.gpufleet.cost.render.ReportJson;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * SnapStart priming: before the snapshot, build and render a small report from fixed data (merge,
 * allocation, JSON, CSV, HTML) so those classes are loaded and compiled. No credentials, tokens,
 * network or wall-clock time are captured.
 */
public final class CostPriming {

  private CostPriming() {}

  /**
   * Registers the SnapStart hooks: before the snapshot, {@link #prime()}, the EC2 answer reader
   * (every report reads EC2 answers: the snapshot holds the XML reader's classes) and the signing
   * path of the S3 and EC2 calls ({@link S3Rest#prime()}: dummy keys, no network).
   */
  public static void register() {
    SnapStartPriming.register(
        CostPriming.class,
        "read-only paths",
        () -> {
          prime();
          Ec2Xml.prime();
          S3Rest.prime();
          PowertoolsMetricsAdapter.prime();
        });
  }

  /**
   * INIT's report-only warm-up steps (see {@link io.gpufleet.core.lambda.InitWarmup}), after the
   * wiring's own (see {@code CostHandler}): the fixed-data report (Jackson 2, the snapshot read
   * back, CSV, the HTML templates), logging, the EC2 answer reader and the metrics flush's EMF
   * writer.
   */
  public static List<Runnable> warmup() {
    // the report's steps apart, so that a thread done with its own work first can take some
    return List.of(
        () -> ReportJson.json(report()),
        CostPriming::primeSnapshot,
        () -> ReportHtml.html(report()),
        () -> ReportJson.csv(report()),
        () -> focus(report()),
        () -> LoggerFactory.getLogger(CostPriming.class),
        Ec2Xml::prime,
        PowertoolsMetricsAdapter::prime);
  }

  public static void prime() {
    primeSnapshot();
    var report = report();
    ReportJson.json(report);
    ReportJson.csv(report);
    ReportHtml.html(report);
    focus(report);
  }

  /** The FOCUS rows and their Parquet encoding (in memory only). */
  private static byte[] focus(io.gpufleet.cost.model.CostReport report) {
    return io.gpufleet.cost.focus.FocusOutput.on("000000000000").bytes(report);
  }

  private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");

  private static InventorySnapshot inventory() {
    return InventoryMerger.merge(
        "prime",
        "us-east-1",
        T,
        List.of(),
        List.of(),
        List.of(
            new Ec2Instance(
                "i-0",
                "g6e.12xlarge",
                "us-east-1a",
                Lifecycle.ON_DEMAND,
                T.minus(Duration.ofHours(2)),
                "running",
                null,
                "prime",
                null)),
        InventorySnapshot.empty("prime"),
        Duration.ofDays(40));
  }

  private static CostReport report() {
    return ReportBuilder.build(
        inventory(),
        new ReportBuilder.Inputs(
            "prime",
            "us-east-1",
            new ReportWindow("1h", T.minus(Duration.ofHours(1)), T),
            T,
            AllocationRule.GPU,
            "team",
            new StaticPrices(),
            new SpotPrices(List.of()),
            List.of()));
  }

  /** Every run reads the stored snapshot back before merging and writes the next: both ways. */
  private static void primeSnapshot() {
    try {
      Json.MAPPER.readValue(Json.MAPPER.writeValueAsBytes(inventory()), InventorySnapshot.class);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
