package io.gpufleet.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.event.DecodeResult;
import io.gpufleet.core.event.EventDecoder;
import io.gpufleet.core.event.FleetEvent;
import io.gpufleet.drain.model.DrainKind;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class SyntheticEventsTest {
  static final Instant NOW = Instant.parse("2026-12-04T03:00:00.123Z");

  @ParameterizedTest
  @EnumSource(
      value = DrainKind.class,
      names = {
        "SPOT_INTERRUPTION",
        "REBALANCE",
        "STATE_CHANGE",
        "HEALTH_SCHEDULED",
        "CAPACITY_RESERVATION_INTERRUPTION"
      })
  void shouldBuildAManualDrainTheDrainDecodesAsThatKindForThatInstance(DrainKind kind) {
    String json =
        SyntheticEvents.manualDrain(kind, "i-0a1b2c3d4e5f60001", NOW, Duration.ofSeconds(120));

    var decoded = new EventDecoder().decodeString(json);

    assertThat(decoded).isInstanceOf(DecodeResult.Decoded.class);
    var event = (FleetEvent.InstanceEvent) ((DecodeResult.Decoded) decoded).event();
    assertThat(DrainKind.of(event)).isEqualTo(kind);
    assertThat(event.instanceIds()).containsExactly("i-0a1b2c3d4e5f60001");
  }

  @Test
  void shouldRefuseAManualDrainOfAKindOnlyAutoScalingDelivers() {
    assertThatThrownBy(
            () ->
                SyntheticEvents.manualDrain(
                    DrainKind.ASG_TERMINATE, "i-0a1b2c3d4e5f60001", NOW, Duration.ofSeconds(120)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("only from an Auto Scaling lifecycle hook");
  }

  @Test
  void shouldGiveABenchmarkEventTheIdItAsksFor() {
    FleetEvent event = SyntheticEvents.spot("bench-7", "i-0a1b2c3d4e5f60002", NOW);

    assertThat(event).isInstanceOf(FleetEvent.SpotInterruption.class);
    assertThat(((FleetEvent.SpotInterruption) event).meta().id()).isEqualTo("bench-7");
    assertThat(SyntheticEvents.spotJson("bench-7", "i-0a1b2c3d4e5f60002", NOW))
        .contains("\"id\":\"bench-7\"");
  }
}
