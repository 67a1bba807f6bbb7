package io.gpufleet.preflight.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.pricing.OnDemandPrices;
import io.gpufleet.core.s3.S3Rest;
import io.gpufleet.preflight.NodePoolPort;
import io.gpufleet.preflight.PreflightSettings;
import io.gpufleet.preflight.model.PreflightReport;
import io.gpufleet.preflight.model.RunOutcome;
import io.gpufleet.preflight.wiring.PreflightWiring;
import io.gpufleet.sim.Recorders;
import io.gpufleet.testkit.aws.AwsEmulatorExtension;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/** Reports, dedupe markers (conditional writes) and plan reads against the S3 emulator. */
class S3ReportAdapterMotoTest {
  @RegisterExtension static final AwsEmulatorExtension AWS = new AwsEmulatorExtension();
  static S3Client s3;
  static S3Rest rest;
  static S3ReportAdapter objects;
  static final String BUCKET = "gpufleet-results-" + UUID.randomUUID().toString().substring(0, 8);

  @BeforeAll
  static void create() {
    s3 = AWS.emulator().clients().build(S3Client.builder().forcePathStyle(true));
    s3.createBucket(r -> r.bucket(BUCKET));
    rest = S3Rest.from(AWS.emulator().clients());
    objects = new S3ReportAdapter(rest, BUCKET, "preflight/");
  }

  @AfterAll
  static void close() {
    s3.close();
  }

  @Test
  void shouldClaimADedupeKeyOnceUntilItIsReleased() {
    String key = "alarm/us-east-1/q@2026-11-30T05:42:10.121Z";

    assertThat(objects.claim(key)).isTrue();
    assertThat(objects.claim(key)).isFalse();
    assertThat(objects.claim("alarm/us-east-1/q@2026-11-30T06:00:00Z")).isTrue();

    objects.release(key);
    assertThat(objects.claim(key)).isTrue();
  }

  @Test
  void shouldSaveTheReportAsJsonUnderTheDay() {
    var report =
        new PreflightReport(
            "llm/q1",
            Instant.parse("2026-11-30T06:00:03Z"),
            "schedule",
            List.of(),
            List.of(),
            List.of(),
            12);

    var uri = objects.save(report);

    assertThat(uri)
        .contains(
            "s3://" + BUCKET + "/preflight/reports/2026/11/30/llm_q1-2026-11-30T060003Z.json");
    var body =
        s3.getObjectAsBytes(
                r ->
                    r.bucket(BUCKET)
                        .key("preflight/reports/2026/11/30/llm_q1-2026-11-30T060003Z.json"))
            .asUtf8String();
    assertThat(body).contains("\"plan\" : \"llm/q1\"");
  }

  @Test
  void shouldReadAPlanByUriAndSayWhenItIsMissing() {
    s3.putObject(r -> r.bucket(BUCKET).key("plans/p.yaml"), RequestBody.fromString("entries: []"));

    assertThat(objects.read("s3://" + BUCKET + "/plans/p.yaml")).isEqualTo("entries: []");
    assertThatThrownBy(() -> objects.read("s3://" + BUCKET + "/plans/none.yaml"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("does not exist");
    assertThatThrownBy(() -> objects.read("s3://" + BUCKET + "-gone/plans/p.yaml"))
        .as("a bucket that is not there")
        .isInstanceOf(ConfigException.class)
        .hasMessage("plan s3://" + BUCKET + "-gone/plans/p.yaml does not exist");
  }

  @Test
  void shouldBuildItsClientOnlyWhenAPlanIsFirstReadByUri() {
    s3.putObject(r -> r.bucket(BUCKET).key("plans/lazy.yaml"), RequestBody.fromString("a: 1"));
    var built = new java.util.concurrent.atomic.AtomicInteger();
    var lazy =
        new S3ReportAdapter(
            PreflightWiring.once(
                () -> {
                  built.incrementAndGet();
                  return rest;
                }),
            "unused",
            "");

    assertThat(built).hasValue(0);
    assertThat(lazy.read("s3://" + BUCKET + "/plans/lazy.yaml")).isEqualTo("a: 1");
    assertThat(lazy.read("s3://" + BUCKET + "/plans/lazy.yaml")).isEqualTo("a: 1");
    assertThat(built).hasValue(1);
  }

  @Test
  void shouldRejectAScheduledRunWhosePlanObjectIsMissingBeforeAnyWrite() {
    // Given a scheduled run naming a plan object that is not there (with s3:ListBucket, which the
    // template grants, S3 answers 404 NoSuchKey rather than 403, so this is what the role sees)
    var clients =
        new RegionalClients(AWS.emulator().credentials(), Optional.of(AWS.emulator().endpoint()));
    var metrics = new Recorders.RecordingMetrics();
    var function =
        PreflightWiring.function(
            PreflightWiring.service(
                clients,
                "us-east-1",
                OnDemandPrices.none(),
                PreflightSettings.defaults(),
                Clock.systemUTC()),
            objects,
            objects,
            objects,
            NodePoolPort.NONE,
            metrics,
            new Recorders.RecordingPublisher(),
            new Recorders.RecordingNotifier(),
            "us-east-1");
    String missing = "s3://" + BUCKET + "/plans/gone.yaml";
    String payload =
        "{\"scheduleArn\":\"arn:aws:scheduler:us-east-1:123456789012:schedule/default/p\","
            + "\"scheduledTime\":\"2026-12-01T06:00:00Z\",\"planS3\":\""
            + missing
            + "\"}";

    // When
    var outcome = function.handle(payload.getBytes(java.nio.charset.StandardCharsets.UTF_8));

    // Then the run is rejected with the plan named, and nothing was claimed or written
    assertThat(outcome.status()).isEqualTo(RunOutcome.REJECTED);
    assertThat(outcome.message()).isEqualTo("plan " + missing + " does not exist");
    assertThat(metrics.total("PayloadsRejected")).isEqualTo(1);
    String marker =
        objects.markerKey(
            "schedule/arn:aws:scheduler:us-east-1:123456789012:schedule/default/p"
                + "@2026-12-01T06:00:00Z");
    assertThat(s3.listObjectsV2(r -> r.bucket(BUCKET).prefix(marker)).contents()).isEmpty();
    clients.close();
  }
}
