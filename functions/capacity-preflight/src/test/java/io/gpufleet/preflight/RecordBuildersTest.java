package io.gpufleet.preflight;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.preflight.model.QuotaNeed;
import io.gpufleet.preflight.model.RegionResult;
import io.gpufleet.preflight.model.Verdict;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The builders of the wide records change what they are told to and copy everything else. */
class RecordBuildersTest {
  static final RegionResult RESULT =
      new RegionResult(
          3,
          "eu-west-1",
          Verdict.GO_WITH_WARNINGS,
          List.of("b"),
          List.of("w"),
          List.of("n"),
          List.of(
              new QuotaNeed(
                  new QuotaBucket.Key(QuotaBucket.P, CapacityType.SPOT),
                  "L-7212CCBC",
                  384.0,
                  96.0,
                  192,
                  96.0)),
          List.of(),
          7,
          new BigDecimal("12.3400"),
          "USD",
          true,
          42);

  @Test
  void shouldCopyEveryComponentOfARegionResult() {
    assertThat(RESULT.toBuilder().build()).isEqualTo(RESULT);
    assertThat(RESULT.withRank(1))
        .usingRecursiveComparison()
        .ignoringFields("rank")
        .isEqualTo(RESULT);
    assertThat(RESULT.withRank(1).rank()).isEqualTo(1);
  }

  @Test
  void shouldStartANewRegionResultEmpty() {
    assertThat(RegionResult.builder("us-east-1", Verdict.GO).build())
        .isEqualTo(
            new RegionResult(
                0,
                "us-east-1",
                Verdict.GO,
                List.of(),
                List.of(),
                List.of(),
                List.of(),
                List.of(),
                null,
                null,
                null,
                false,
                0));
    assertThat(RegionResult.unknown("us-east-1", "timed out", 9))
        .isEqualTo(
            new RegionResult(
                0,
                "us-east-1",
                Verdict.UNKNOWN,
                List.of("timed out"),
                List.of(),
                List.of(),
                List.of(),
                List.of(),
                null,
                null,
                null,
                false,
                9));
  }

  @Test
  void shouldChangeOnlyTheNamedSettings() {
    var base =
        new PreflightSettings(
            Optional.of("plan"),
            Optional.of("s3://b/k"),
            List.of("us-east-1"),
            5,
            6,
            Duration.ofSeconds(7),
            70,
            2,
            48,
            Optional.of("bucket"),
            "p/",
            false,
            100,
            3);

    assertThat(base.toBuilder().build()).isEqualTo(base);
    assertThat(base.withConcurrency(1, 2))
        .usingRecursiveComparison()
        .ignoringFields("regionConcurrency", "callConcurrency")
        .isEqualTo(base);
    assertThat(base.withConcurrency(1, 2).regionConcurrency()).isEqualTo(1);
    assertThat(base.withConcurrency(1, 2).callConcurrency()).isEqualTo(2);
    assertThat(base.withRegionTimeout(Duration.ofMinutes(2)))
        .usingRecursiveComparison()
        .ignoringFields("regionTimeout")
        .isEqualTo(base);
    assertThat(base.withIncrease(true, 512))
        .usingRecursiveComparison()
        .ignoringFields("increaseEnabled", "increaseMaxVcpu")
        .isEqualTo(base);
    assertThat(base.withIncrease(true, 512).increaseMaxVcpu()).isEqualTo(512);
    assertThat(base.withPlanText(null).planText()).isEmpty();
    assertThat(base.withPlanText(null))
        .usingRecursiveComparison()
        .ignoringFields("planText")
        .isEqualTo(base);
  }
}
