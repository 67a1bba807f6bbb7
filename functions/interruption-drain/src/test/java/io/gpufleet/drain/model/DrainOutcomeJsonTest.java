package io.gpufleet.drain.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.json.Json;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DrainOutcomeJsonTest {

  @Test
  void actionsKeepTheirDeclaredOrderWhateverSetTheyCameIn() throws Exception {
    var reversed = new LinkedHashSet<>(List.of(Action.DRAIN, Action.CORDON, Action.TAINT));
    DrainOutcome outcome = outcome(reversed);

    String json = Json.MAPPER.writeValueAsString(outcome);
    assertThat(json).contains("\"actions\":[\"TAINT\",\"CORDON\",\"DRAIN\"]");

    // read back, Jackson fills a HashSet; the record puts it back in declared order
    DrainOutcome read = Json.MAPPER.readValue(json, DrainOutcome.class);
    assertThat(read.actions()).containsExactly(Action.TAINT, Action.CORDON, Action.DRAIN);
    assertThat(Json.MAPPER.writeValueAsString(read)).isEqualTo(json);
  }

  @Test
  void noActionsStayEmptyAndAbsentActionsStayAbsent() {
    assertThat(outcome(Set.of()).actions()).isEmpty();
    assertThat(outcome(null).actions()).isNull();
  }

  private static DrainOutcome outcome(Set<Action> actions) {
    return new DrainOutcome(
        "e-1",
        "SPOT_INTERRUPTION",
        "i-0abc",
        "gpu",
        "node-1",
        DrainOutcome.Status.DRAINED,
        "drained",
        actions,
        null,
        null,
        null,
        null,
        List.of(),
        List.of(),
        List.of(),
        List.of());
  }
}
