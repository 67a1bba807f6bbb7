package io.gpufleet.schedule.wiring;

import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.core.lambda.InitWarmup;
import io.gpufleet.core.lambda.LambdaEntry;
import io.gpufleet.core.lambda.LambdaHandler;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.core.outcome.PowertoolsMetricsAdapter;
import io.gpufleet.core.schema.SettingsDocument;
import io.gpufleet.schedule.SchedulePriming;
import io.gpufleet.schedule.ScheduleService;
import io.gpufleet.schedule.ScheduleTick;
import io.gpufleet.schedule.k8s.ScheduleClusterAdapter;
import java.util.ArrayList;
import java.util.List;

/** Lambda entry: decode the scheduler tick, run the reconcile, answer with the outcome. */
public final class ScheduleHandler extends LambdaHandler {
  public ScheduleHandler() {
    // read-only paths loaded at init beside the wiring (and again before a SnapStart snapshot);
    // wired again when the settings document changes
    super(
        SettingsDocument.rewiring(
            () ->
                primed(
                    InitWarmup.around(
                        warmup(
                            System.getenv("SCHEDULE_POLICY"),
                            !java.util.Objects.requireNonNullElse(
                                    System.getenv("SCHEDULE_RECORDS_BUCKET"), "")
                                .isEmpty()),
                        ScheduleWiring::fromEnvironment)),
            () -> entry(ScheduleWiring.fromEnvironment()),
            LambdaEntry::close));
  }

  private static LambdaEntry<ScheduleTick.Decoded> primed(ScheduleWiring.Wired wired) {
    SchedulePriming.register();
    return entry(wired);
  }

  private static LambdaEntry<ScheduleTick.Decoded> entry(ScheduleWiring.Wired wired) {
    return entry(wired.service(), wired.metrics()).closing(wired.client());
  }

  public ScheduleHandler(ScheduleService service, MetricsPort metrics) {
    super(entry(service, metrics));
  }

  /**
   * INIT's second thread: {@link SchedulePriming#warmup}, then the Kubernetes model's Jackson
   * classes (a run's list answers, apply bodies and Event) and the metrics flush's EMF classes,
   * which the first tick otherwise loads on the calling thread after INIT while this thread would
   * sit idle.
   */
  static List<Runnable> warmup(String policySource, boolean records) {
    var steps = new ArrayList<Runnable>(SchedulePriming.warmup(policySource, records));
    steps.add(() -> ScheduleClusterAdapter.prime(KubeClients.serialization()));
    steps.add(PowertoolsMetricsAdapter::prime);
    return steps;
  }

  static LambdaEntry<ScheduleTick.Decoded> entry(ScheduleService service, MetricsPort metrics) {
    return LambdaEntry.of(ScheduleTick::decode, (tick, context) -> service.handle(tick), metrics);
  }
}
