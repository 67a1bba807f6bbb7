package io.gpufleet.drain.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.json.Json;
import io.gpufleet.drain.model.DrainOutcome.Status;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The outcome's builder: what it leaves empty, and a copy that changes one field only. */
class DrainOutcomeBuilderTest {
  static final Instant AT = Instant.parse("2026-12-01T03:00:00Z");

  static DrainOutcome full() {
    return DrainOutcome.builder(
            "e-1", "spot-interruption", "i-0a", "blue", "gpu-a", Status.PARTIAL, "m", AT)
        .actions(EnumSet.of(Action.TAINT, Action.DRAIN))
        .deadline(AT.plusSeconds(100), false)
        .timings(new DrainOutcome.Timings(10L, 20L, null))
        .pods(List.of("apps/a"), List.of(), List.of(), List.of())
        .lifecycle(
            new DrainOutcome.LifecycleReport("g", "h", "t", null, 1, 0, AT, null, "continues"))
        .planned(List.of("evict apps/a"))
        .region("us-east-1")
        .checkpoints(List.of())
        .replacement(null)
        .build();
  }

  @Test
  void shouldBuildWhatSimpleBuildsWhenOnlyTheCommonFieldsAreSet() {
    var built =
        DrainOutcome.builder("e-1", "rebalance", "i-0a", "blue", null, Status.NO_ACTION, "m", AT)
            .build();

    assertThat(built)
        .isEqualTo(
            new DrainOutcome(
                "e-1",
                "rebalance",
                "i-0a",
                "blue",
                null,
                Status.NO_ACTION,
                "m",
                Set.of(),
                AT,
                null,
                null,
                null,
                List.of(),
                List.of(),
                List.of(),
                List.of()))
        .isEqualTo(
            DrainOutcome.simple(
                "e-1", "rebalance", "i-0a", "blue", null, Status.NO_ACTION, "m", AT));
  }

  @Test
  void shouldCopyEveryFieldAndChangeOnlyWhatIsSet() {
    var outcome = full();

    assertThat(outcome.toBuilder().build()).isEqualTo(outcome);
    var moved = outcome.with(Status.DRAINING, "goes on");
    assertThat(moved.status()).isEqualTo(Status.DRAINING);
    assertThat(moved.message()).isEqualTo("goes on");
    assertThat(Json.write(moved.with(outcome.status(), outcome.message())))
        .isEqualTo(Json.write(outcome));
    assertThat(outcome.withRegion("eu-west-1").toBuilder().region("us-east-1").build())
        .isEqualTo(outcome);
  }

  @Test
  void shouldLeaveNoCheckpointsOutAndKeepTheRest() {
    var outcome = full();

    var none = outcome.withCheckpoints(List.of());

    assertThat(none.checkpoints()).isNull();
    assertThat(none.toBuilder().checkpoints(List.of()).build()).isEqualTo(outcome);
  }
}
