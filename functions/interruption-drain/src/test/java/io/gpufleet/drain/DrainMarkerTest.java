package io.gpufleet.drain;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.drain.DrainMarker.State;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The dedupe annotation: written, read back, and whether it blocks a repeat delivery. */
class DrainMarkerTest {
  static final Instant UNTIL = Instant.parse("2026-11-29T03:04:31Z");

  @ParameterizedTest
  @EnumSource(State.class)
  void shouldReadBackWhatItWrote(State state) {
    // Given
    var marker = new DrainMarker("1e5527d7-bb36", "spot-interruption", state, UNTIL);

    // When
    var read = DrainMarker.read(Map.of(DrainMarker.ANNOTATION, marker.toJson(), "other", "x"));

    // Then
    assertThat(read).contains(marker);
  }

  @Test
  void shouldWriteTheDocumentedAnnotationShape() {
    var json = new DrainMarker("e-1", "rebalance", State.DONE, UNTIL).toJson();

    assertThat(json)
        .isEqualTo(
            "{\"event\":\"e-1\",\"kind\":\"rebalance\",\"state\":\"DONE\","
                + "\"until\":\"2026-11-29T03:04:31Z\"}");
  }

  @ParameterizedTest(name = "{0} for the same event, now until{1}s -> blocks {2}")
  @CsvSource({
    "DONE,        -60, true",
    "DONE,        60,  true",
    "IN_PROGRESS, -1,  true",
    "IN_PROGRESS, 0,   false",
    "IN_PROGRESS, 1,   false",
    "FAILED,      -60, false",
    "FAILED,      60,  false",
  })
  void shouldBlockTheSameEventOnlyWhileDoneOrClaimed(
      State state, long nowMinusUntil, boolean expected) {
    var marker = new DrainMarker("e-1", "spot-interruption", state, UNTIL);

    assertThat(marker.blocks("e-1", UNTIL.plusSeconds(nowMinusUntil))).isEqualTo(expected);
  }

  @ParameterizedTest
  @EnumSource(State.class)
  void shouldNeverBlockAnotherEvent(State state) {
    var marker = new DrainMarker("e-1", "spot-interruption", state, UNTIL);

    assertThat(marker.blocks("e-2", UNTIL.minusSeconds(60))).isFalse();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "not json",
        "{}",
        "null",
        "[1,2]",
        "{\"event\":\"e-1\",\"kind\":\"rebalance\",\"state\":\"WHATEVER\",\"until\":\"2026-11-29T03:04:31Z\"}",
        "{\"event\":\"e-1\",\"kind\":\"rebalance\",\"state\":\"DONE\",\"until\":\"tomorrow\"}",
        "{\"event\":\"e-1\",\"kind\":\"rebalance\",\"state\":\"DONE\"}",
      })
  void shouldTreatAnUnreadableAnnotationAsNoClaim(String raw) {
    assertThat(DrainMarker.read(Map.of(DrainMarker.ANNOTATION, raw))).isEmpty();
  }

  @Test
  void shouldFindNoClaimWithoutTheAnnotation() {
    assertThat(DrainMarker.read(Map.of("other", "x"))).isEmpty();
    assertThat(DrainMarker.read(Map.of())).isEmpty();
    assertThat(DrainMarker.read(null)).isEmpty();
    var withNull = new HashMap<String, String>();
    withNull.put(DrainMarker.ANNOTATION, null);
    assertThat(DrainMarker.read(withNull)).isEmpty();
  }
}
