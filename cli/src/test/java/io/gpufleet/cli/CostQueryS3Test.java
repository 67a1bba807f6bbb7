package io.gpufleet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.bench.CostBench;
import io.gpufleet.cost.focus.FocusOutput;
import io.gpufleet.schedule.HoldRecords;
import io.gpufleet.testkit.aws.AwsEmulatorExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@code cost query --from s3://…}: the bucket's FOCUS objects (and only those) are copied with the
 * real S3 client from an emulated bucket (moto), keys as paths, then queried like a directory.
 */
class CostQueryS3Test {
  @RegisterExtension static final AwsEmulatorExtension AWS = new AwsEmulatorExtension();

  @Test
  void shouldQueryTheBucketsFocusObjectsOnly() throws Exception {
    Instant now = Instant.parse("2026-11-30T02:00:00Z");
    var report =
        CostBench.reportOnce(CostBench.fleet(20, 200, now, 7), Clock.fixed(now, ZoneOffset.UTC));
    byte[] parquet = FocusOutput.on("111122223333").bytes(report);
    var err = new ByteArrayOutputStream();
    try (var s3 = AWS.emulator().clients().build(S3Client.builder().forcePathStyle(true))) {
      s3.createBucket(b -> b.bucket("central-focus"));
      String key =
          "org/focus/billing_period=2026-11/account=111122223333/cluster=bench/day.parquet";
      s3.putObject(b -> b.bucket("central-focus").key(key), RequestBody.fromBytes(parquet));
      // not FOCUS data: a report under another prefix, and a stray object under focus/
      s3.putObject(
          b -> b.bucket("central-focus").key("org/reports/bench/x/cost.json"),
          RequestBody.fromString("{}"));
      s3.putObject(
          b -> b.bucket("central-focus").key("org/focus/README.txt"),
          RequestBody.fromString("not parquet"));

      var dir =
          CostCommand.Query.download(
              s3,
              URI.create("s3://central-focus/org"),
              new PrintStream(err, true, StandardCharsets.UTF_8));

      var r =
          FocusQueries.run(
              dir, "SELECT count(*), sum(EffectiveCost), min(account), min(cluster) FROM focus");
      assertThat(((Number) r.rows().get(0).get(0)).intValue()).isEqualTo(report.rows().size());
      assertThat((BigDecimal) r.rows().get(0).get(1))
          .isEqualByComparingTo(report.kpis().totalCost());
      assertThat(r.rows().get(0).subList(2, 4)).containsExactly("111122223333", "bench");
      assertThat(err.toString(StandardCharsets.UTF_8))
          .contains("1 FOCUS file(s) from s3://central-focus/org/focus/");
    }
  }

  @Test
  void shouldBringTheSchedulesHoldRecordsWithTheFocusFiles() throws Exception {
    Instant now = Instant.parse("2026-11-30T02:00:00Z");
    var report =
        CostBench.reportOnce(CostBench.fleet(20, 200, now, 7), Clock.fixed(now, ZoneOffset.UTC));
    var err = new ByteArrayOutputStream();
    try (var s3 = AWS.emulator().clients().build(S3Client.builder().forcePathStyle(true))) {
      s3.createBucket(b -> b.bucket("report-bucket"));
      s3.putObject(
          b ->
              b.bucket("report-bucket")
                  .key("focus/billing_period=2026-11/account=111122223333/cluster=bench/d.parquet"),
          RequestBody.fromBytes(FocusOutput.on("111122223333").bytes(report)));
      var hold = new HoldRecords.Hold("Deployment", "ml", "chat", "t", 4, 1, 2);
      for (Instant t : List.of(now, now.plusSeconds(1800))) {
        s3.putObject(
            b -> b.bucket("report-bucket").key(HoldRecords.key("111122223333", "bench", t)),
            RequestBody.fromBytes(HoldRecords.lines(t, null, "off-hours", List.of(hold))));
      }

      // the bucket's focus prefix named: its schedule records come too
      var dir =
          CostCommand.Query.download(
              s3,
              URI.create("s3://report-bucket/focus/"),
              new PrintStream(err, true, StandardCharsets.UTF_8));

      var r = FocusQueries.run(dir, "schedule-savings");
      // 3 replicas x 2 GPUs for the half hour until the second run
      assertThat(r.rows())
          .singleElement()
          .satisfies(row -> assertThat(row.get(4).toString()).isEqualTo("3.0"));
      assertThat(err.toString(StandardCharsets.UTF_8))
          .contains("2 schedule record(s) from s3://report-bucket/schedule/");
    }
  }
}
