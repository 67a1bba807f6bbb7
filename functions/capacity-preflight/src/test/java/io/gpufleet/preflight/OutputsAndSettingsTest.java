package io.gpufleet.preflight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import io.gpufleet.preflight.model.PreflightReport;
import io.gpufleet.preflight.model.QuotaNeed;
import io.gpufleet.preflight.model.RegionResult;
import io.gpufleet.preflight.model.Verdict;
import io.gpufleet.sim.Recorders;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class OutputsAndSettingsTest {

  static RegionResult region(String name, Verdict v) {
    var key = new QuotaBucket.Key(QuotaBucket.P, CapacityType.SPOT);
    return new RegionResult(
        1,
        name,
        v,
        v == Verdict.NO_GO ? List.of("short") : List.of(),
        List.of(),
        List.of(),
        List.of(new QuotaNeed(key, "L-7212CCBC", 384.0, 96.0, 192, 96.0)),
        List.of(),
        7,
        null,
        null,
        false,
        5);
  }

  static PreflightReport report(RegionResult... regions) {
    return new PreflightReport(
        "p",
        Instant.parse("2026-11-30T06:00:00Z"),
        "schedule",
        List.of(regions),
        List.of(),
        List.of(),
        10);
  }

  @Nested
  class Reporter {
    final Recorders.RecordingMetrics metrics = new Recorders.RecordingMetrics();
    final Recorders.RecordingPublisher publisher = new Recorders.RecordingPublisher();
    final Recorders.RecordingNotifier notifier = new Recorders.RecordingNotifier();

    @Test
    void shouldNotNotifyWhenNoRegionIsNoGoButStillPublishAndCountHeadroom() {
      var uri =
          PreflightReporting.storeAndReport(
              PreflightReporting.reporter(metrics, publisher, notifier),
              r -> Optional.of("s3://b/k"),
              report(region("us-east-1", Verdict.GO)));

      assertThat(uri).contains("s3://b/k");
      assertThat(notifier.sent).isEmpty();
      assertThat(publisher.published)
          .singleElement()
          .satisfies(
              p -> assertThat(((Map<?, ?>) p.detail()).get("reportUri")).isEqualTo("s3://b/k"));
      assertThat(metrics.total("QuotaHeadroomVcpu.P/Spot.us-east-1")).isEqualTo(288);
      assertThat(metrics.total("PlanHeadroomVcpu.P/Spot.us-east-1")).isEqualTo(96);
      assertThat(metrics.total("RegionsGo")).isEqualTo(1);
    }

    @Test
    void shouldKeepReportingWhenTheStoreAndTheBusFail() {
      publisher.failNext(1);
      ReportStorePort broken =
          r -> {
            throw new IllegalStateException("S3 down");
          };

      var uri =
          PreflightReporting.storeAndReport(
              PreflightReporting.reporter(metrics, publisher, notifier),
              broken,
              report(region("us-east-1", Verdict.NO_GO)));

      assertThat(uri).isEmpty();
      assertThat(metrics.total("ReportFailures")).isEqualTo(2);
      assertThat(notifier.sent)
          .singleElement()
          .satisfies(
              n -> {
                assertThat(n.subject())
                    .isEqualTo("[GPU Fleet] preflight p: NO_GO in 1 of 1 regions, no region fits");
                assertThat(n.message()).contains("1. us-east-1: NO_GO").contains("   - short");
              });
    }
  }

  @Nested
  class Dedupe {
    @Test
    void shouldAnswerRepeatsFromMemoryAndAskTheSharedStoreOnce() {
      var shared = DedupeStorePort.inMemory(10);
      var calls = new int[1];
      DedupeStorePort counting =
          new DedupeStorePort() {
            @Override
            public boolean claim(String key) {
              calls[0]++;
              return shared.claim(key);
            }

            @Override
            public void release(String key) {
              shared.release(key);
            }
          };
      var layered = DedupeStorePort.layered(DedupeStorePort.inMemory(10), counting);

      assertThat(layered.claim("k")).isTrue();
      assertThat(layered.claim("k")).isFalse();
      assertThat(calls[0]).isEqualTo(1);
      // another container (own memory) sharing the store
      assertThat(DedupeStorePort.layered(DedupeStorePort.inMemory(10), counting).claim("k"))
          .isFalse();
      layered.release("k");
      assertThat(layered.claim("k")).isTrue();
    }

    @Test
    void shouldForgetTheOldestKeysBeyondItsCapacity() {
      var memory = DedupeStorePort.inMemory(2);
      memory.claim("a");
      memory.claim("b");
      memory.claim("c");
      assertThat(memory.claim("a")).isTrue();
      assertThat(memory.claim("c")).isFalse();
    }
  }

  @Nested
  class FromEnvironment {
    @Test
    void shouldReadTheDefaults() {
      var s = PreflightSettings.from(new Settings(Map.of()));
      assertThat(s.regionConcurrency()).isEqualTo(17);
      assertThat(s.regionTimeout()).isEqualTo(Duration.ofSeconds(20));
      assertThat(s.increaseEnabled()).isFalse();
      assertThat(s.candidateRegions()).hasSize(17);
      assertThat(s.resultsPrefix()).isEqualTo("preflight/");
    }

    @Test
    void shouldRefuseIncreasesWithoutACap() {
      assertThatThrownBy(
              () -> PreflightSettings.from(new Settings(Map.of("QUOTA_INCREASE_ENABLED", "true"))))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("QUOTA_INCREASE_MAX_VCPU");
    }

    @Test
    void shouldNameTheBadValue() {
      assertThatThrownBy(
              () ->
                  PreflightSettings.from(
                      new Settings(Map.of("PREFLIGHT_CANDIDATE_REGIONS", "us-east-1,atlantis-1"))))
          .hasMessageContaining("atlantis-1");
      assertThatThrownBy(
              () ->
                  PreflightSettings.from(
                      new Settings(Map.of("PREFLIGHT_PLAN_S3_URI", "bucket/key"))))
          .hasMessageContaining("is not an S3 URI");
      assertThat(
              PreflightSettings.from(new Settings(Map.of("RESULTS_PREFIX", "x"))).resultsPrefix())
          .isEqualTo("x/");
    }
  }
}
