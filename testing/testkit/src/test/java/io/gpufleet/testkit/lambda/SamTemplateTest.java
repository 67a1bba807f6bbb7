package io.gpufleet.testkit.lambda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the Lambda runtime tier reads from the repository's template.yaml. */
class SamTemplateTest {
  static final SamTemplate TEMPLATE =
      SamTemplate.load(RuntimeTier.repositoryRoot().resolve("template.yaml"));
  static final SamTemplate.Stack STACK =
      new SamTemplate.Stack(
          "ops",
          "eu-west-1",
          "123456789012",
          Map.of("ClusterName", "prod-gpu"),
          Map.of(
              "CostReportBucket",
              "ops-cost-reports",
              "LifecycleQueue",
              "https://sqs.eu-west-1.amazonaws.com/123456789012/ops-LifecycleQueue"));

  @Test
  void shouldMergeGlobalsUnderTheFunctionsOwnProperties() {
    var f = TEMPLATE.function("InterruptionDrainFunction", STACK);

    assertThat(f.handler()).isEqualTo("io.gpufleet.drain.wiring.DrainHandler::handleRequest");
    assertThat(f.runtime()).isEqualTo("java21");
    assertThat(f.functionName()).isEqualTo("ops-interruption-drain");
    assertThat(f.memoryMb()).isEqualTo(3008);
    assertThat(f.timeoutSeconds()).isEqualTo(180);
    assertThat(f.snapStart()).isTrue();
    assertThat(f.environment())
        .containsEntry("POWERTOOLS_SERVICE_NAME", "interruption-drain")
        .containsEntry("POWERTOOLS_METRICS_NAMESPACE", "GpuFleetOps")
        .containsEntry("CLUSTER_NAME", "prod-gpu")
        .containsEntry("OUTCOME_EVENT_BUS", "default")
        // the continuation queue exists in every stack (lifecycle hooks, rebalance holds)
        .containsEntry(
            "LIFECYCLE_CONTINUATION_QUEUE_URL",
            "https://sqs.eu-west-1.amazonaws.com/123456789012/ops-LifecycleQueue")
        // !If [HasNotificationTopic, …, !Ref AWS::NoValue] with the default "" topic
        .doesNotContainKey("NOTIFY_TOPIC_ARN");
  }

  @Test
  void shouldResolveParametersConditionsAndResources() {
    var f = TEMPLATE.function("CostReportFunction", STACK);

    assertThat(f.memoryMb()).isEqualTo(2560);
    assertThat(f.timeoutSeconds()).isEqualTo(900);
    assertThat(f.environment())
        .containsEntry("REPORT_BUCKET", "ops-cost-reports")
        // CostReportSchedule defaults to daily, so CostReportsHourly is false
        .containsEntry("COST_WINDOW", "last-day");
    var hourly =
        new SamTemplate.Stack(
            "ops",
            "eu-west-1",
            "123456789012",
            Map.of("ClusterName", "prod-gpu", "CostReportSchedule", "hourly"),
            STACK.resources());
    assertThat(TEMPLATE.function("CostReportFunction", hourly).environment())
        .containsEntry("COST_WINDOW", "last-hour");
  }

  @Test
  void shouldRefuseAResourceItWasNotGiven() {
    var bare = new SamTemplate.Stack("ops", "eu-west-1", "1", Map.of("ClusterName", "c"), Map.of());

    assertThatThrownBy(() -> TEMPLATE.function("CostReportFunction", bare))
        .hasMessageContaining("REPORT_BUCKET")
        .hasMessageContaining("CostReportBucket");
  }

  @Test
  void shouldRefuseARequiredParameterWithoutAValue() {
    var none = new SamTemplate.Stack("ops", "eu-west-1", "1", Map.of(), Map.of());

    assertThatThrownBy(() -> TEMPLATE.function("InterruptionDrainFunction", none))
        .hasMessageContaining("parameter ClusterName has no default");
  }
}
