package io.gpufleet.drain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.outcome.Metric;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.PodReport;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a drain outcome counts, through the declarations of {@link DrainMetrics}. */
class DrainMetricsTest {
  record Added(String name, double value, MetricsPort.Unit unit, Map<String, String> dims) {}

  static final class Capturing implements MetricsPort {
    final List<Added> added = new ArrayList<>();

    @Override
    public void add(String name, double value, Unit unit) {
      added.add(new Added(name, value, unit, Map.of()));
    }

    @Override
    public void add(String name, double value, Unit unit, Map<String, String> dimensions) {
      added.add(new Added(name, value, unit, dimensions));
    }

    @Override
    public void flush() {}
  }

  @Test
  void shouldCountEventsByKindAndOutcomeAndPodsNotEvictedByReason() {
    // Given a partial drain: one pod evicted, two blocked by a PDB, one the API server kept failing
    var blocked = new PodReport("ml/a", PodReport.Status.BLOCKED, "pdb", 3, null, null, false);
    var outcome =
        new DrainOutcome(
            "e-1",
            "SPOT_INTERRUPTION",
            "i-0abc",
            "gpu",
            "node-1",
            DrainOutcome.Status.PARTIAL,
            "2 pods did not make it",
            EnumSet.noneOf(io.gpufleet.drain.model.Action.class),
            Instant.parse("2026-12-02T10:00:00Z"),
            Instant.parse("2026-12-02T10:01:50Z"),
            false,
            new DrainOutcome.Timings(40L, 90L, null),
            List.of("ml/ok"),
            List.of(
                blocked,
                blocked.with(PodReport.Status.BLOCKED, "pdb"),
                new PodReport("ml/c", PodReport.Status.FAILED, "500", 5, null, null, false)),
            List.of(),
            List.of());
    var metrics = new Capturing();

    // When it is counted
    new DrainReportingProbe().count(outcome, metrics);

    // Then the dimensioned metrics carry exactly their declared dimensions
    assertThat(metrics.added)
        .contains(
            new Added(
                "EventsByKind",
                1,
                MetricsPort.Unit.COUNT,
                Map.of("Kind", "SPOT_INTERRUPTION", "Outcome", "Partial")),
            new Added(
                "PodsNotEvictedByReason", 2, MetricsPort.Unit.COUNT, Map.of("Reason", "Blocked")),
            new Added(
                "PodsNotEvictedByReason", 1, MetricsPort.Unit.COUNT, Map.of("Reason", "Failed")),
            new Added("EventsPartial", 1, MetricsPort.Unit.COUNT, Map.of()),
            new Added("DeadlineMissed", 1, MetricsPort.Unit.COUNT, Map.of()),
            new Added("TimeToCordon", 40, MetricsPort.Unit.MILLISECONDS, Map.of()));
    assertThat(metrics.added).noneMatch(a -> a.name().equals("ReportFailures"));
    // and every name counted is one the function declares
    var declared = new HashSet<String>();
    DrainMetrics.ALL.forEach(m -> declared.add(m.name()));
    assertThat(metrics.added).allSatisfy(a -> assertThat(declared).contains(a.name()));
  }

  @Test
  void shouldRefuseDimensionsOtherThanTheDeclaredOnes() {
    var metrics = new Capturing();
    assertThatThrownBy(
            () -> metrics.add(DrainMetrics.EVENTS_BY_KIND, 1, Map.of("Kind", "SPOT_INTERRUPTION")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("declared with dimensions [Kind, Outcome]");
    assertThatThrownBy(() -> metrics.add(DrainMetrics.PODS_NOT_EVICTED_BY_REASON, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Metric.count("Events", "Service"))
        .hasMessageContaining("Service is implied");
  }

  @Test
  void shouldDeclareEachNameOnce() {
    var names = DrainMetrics.ALL.stream().map(Metric::name).toList();
    assertThat(names).doesNotHaveDuplicates();
  }

  /** The reporting mapping, reached through its public factory's mapping. */
  static final class DrainReportingProbe {
    void count(DrainOutcome o, MetricsPort metrics) {
      DrainReporting.reporter(
              new FakeCluster(java.time.Clock.systemUTC()), metrics, (t, d, r) -> {}, (s, b) -> {})
          .report(o);
    }
  }
}
