package io.gpufleet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.json.Json;
import io.gpufleet.deploy.Doctor;
import io.gpufleet.deploy.DoctorFleet;
import io.gpufleet.deploy.DoctorSimulation;
import io.gpufleet.deploy.confinement.ConfinementRender;
import io.gpufleet.scenario.ProjectHome;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.testkit.aws.contract.ContractViolations;
import io.gpufleet.testkit.aws.contract.ModelValidationInterceptor;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** {@code gpufleet doctor} against the simulated stack and cluster. */
class DoctorCommandTest extends CapturedCli {
  private static final Path ROOT = ProjectHome.findRoot(Path.of(""));

  @Test
  void shouldFindThePlantedStaleDrainBindingAndPassTheRest() throws Exception {
    ContractViolations.drain();
    long validatedBefore = ContractViolations.validatedRequests();
    try (var sim = new DoctorSimulation(ROOT, List.of(new ModelValidationInterceptor()))) {
      // When doctor checks the simulated stack
      var findings = new Doctor(sim.clients, ROOT, DoctorSimulation.STACK).run();

      // Then the drain's bindings name the stale group and the fix re-applies the render
      var rbac = byCheck(findings).get("RBAC and admission manifests");
      assertThat(rbac.status()).isEqualTo(Doctor.Status.FAIL);
      assertThat(rbac.detail())
          .contains("ClusterRoleBinding gpufleet-interruption-drain")
          .contains("want \"gpufleet-drain\", found \"" + DoctorSimulation.STALE_GROUP + "\"");
      assertThat(rbac.fix()).contains("kubectl apply");
      // and Karpenter's own interruption queue is a warning with the advice
      var handlers = byCheck(findings).get("other interruption handlers");
      assertThat(handlers.status()).isEqualTo(Doctor.Status.WARN);
      assertThat(handlers.fix()).contains("DRAIN_LEAVE_KARPENTER_NODES: true");
      // and the Spot node group without Capacity Rebalancing is a warning with the command
      var rebalance = byCheck(findings).get(DoctorFleet.REBALANCE_CHECK);
      assertThat(rebalance.status()).isEqualTo(Doctor.Status.WARN);
      assertThat(rebalance.detail())
          .contains("node group " + DoctorSimulation.SPOT_NODE_GROUP)
          .contains("only after the node is gone")
          .doesNotContain(DoctorSimulation.ON_DEMAND_NODE_GROUP);
      assertThat(rebalance.fix())
          .isEqualTo(
              "aws autoscaling update-auto-scaling-group --auto-scaling-group-name "
                  + DoctorSimulation.SPOT_ASG
                  + " --capacity-rebalance");
      // and everything else passes
      assertThat(findings)
          .filteredOn(f -> f.status() == Doctor.Status.PASS)
          .extracting(Doctor.Finding::check)
          .containsExactlyInAnyOrder(
              "stack outputs",
              "function aliases",
              "reserved concurrency",
              "authentication mode",
              "access entries",
              "rules",
              "lifecycle hooks",
              "schedule policy",
              "settings documents",
              "last run: interruption-drain",
              "last run: disruption-schedule",
              "last run: capacity-preflight",
              "last run: cost-report");
      assertThat(Doctor.exitCode(findings)).isEqualTo(1);
      // and every AWS request doctor made was valid for its service model, and read-only
      assertThat(ContractViolations.drain()).isEmpty();
      assertThat(ContractViolations.validatedRequests() - validatedBefore)
          .isGreaterThanOrEqualTo(sim.stub.calls().size());
      assertThat(sim.stub.calls())
          .extracting(AwsCall::operationName)
          .allMatch(op -> op.matches("(Describe|List|Get).*"), "read-only operations");
    }
  }

  @Test
  void shouldPassTheManifestsOnceTheRenderForTheStacksParametersIsApplied() throws Exception {
    try (var sim = new DoctorSimulation(ROOT, List.of())) {
      // Given the drain's RBAC re-applied as rendered for the stack's parameters
      var overrides = new TreeMap<String, String>();
      ConfinementRender.parameters(ROOT)
          .keySet()
          .forEach(k -> overrides.put(k, sim.parameters.get(k)));
      String text =
          ConfinementRender.render(ROOT, overrides).get(Path.of("rbac/interruption-drain.yaml"));
      sim.kubernetes
          .load(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)))
          .items()
          .forEach(o -> sim.kubernetes.resource(o).createOr(r -> r.update()));

      var findings = new Doctor(sim.clients, ROOT, DoctorSimulation.STACK).run();

      assertThat(byCheck(findings).get("RBAC and admission manifests").status())
          .isEqualTo(Doctor.Status.PASS);
      assertThat(Doctor.exitCode(findings)).isZero();
    }
  }

  @Test
  void shouldFailAPolicyTheScheduleWouldRefuse() throws Exception {
    try (var sim = new DoctorSimulation(ROOT, List.of())) {
      // Given a policy whose time zone does not exist
      sim.ssm.put(
          sim.parameters.get("SchedulePolicy").substring("ssm:".length()),
          "apiVersion: gpufleet.io/v1\nkind: DisruptionSchedule\ntimeZone: Mars/Olympus\n");

      var policy =
          byCheck(new Doctor(sim.clients, ROOT, DoctorSimulation.STACK).run())
              .get("schedule policy");

      assertThat(policy.status()).isEqualTo(Doctor.Status.FAIL);
      assertThat(policy.detail()).contains("is invalid");
      assertThat(policy.fix()).contains("disruption-schedule.example.yaml");
    }
  }

  @Test
  void shouldReadEachFunctionsSettingsDocumentAndFailOneItsInitWouldRefuse() throws Exception {
    try (var sim = new DoctorSimulation(ROOT, List.of())) {
      var settings =
          byCheck(new Doctor(sim.clients, ROOT, DoctorSimulation.STACK).run())
              .get("settings documents");
      assertThat(settings.status()).isEqualTo(Doctor.Status.PASS);
      assertThat(settings.detail())
          .isEqualTo(
              "interruption-drain: 1 set, disruption-schedule: defaults, capacity-preflight:"
                  + " defaults, cost-report: defaults");

      // Given a cost document with a knob out of range
      sim.ssm.put(
          io.gpufleet.core.schema.SettingsDocument.parameterName(
              DoctorSimulation.STACK, "cost-report"),
          "COST_PRICING_CONCURRENCY: 0\n");

      settings =
          byCheck(new Doctor(sim.clients, ROOT, DoctorSimulation.STACK).run())
              .get("settings documents");
      assertThat(settings.status()).isEqualTo(Doctor.Status.FAIL);
      assertThat(settings.detail())
          .startsWith(
              "settings document ssm:/gpufleet/"
                  + DoctorSimulation.STACK
                  + "/cost-report does not match schemas/settings/cost-report.schema.json:"
                  + " COST_PRICING_CONCURRENCY: ");
      assertThat(settings.fix()).contains("./gpufleet settings put FUNCTION FILE --stack");
    }
  }

  @Test
  void shouldPrintTheFindingsAsJsonAndExitNonZeroOnAFail() throws Exception {
    int code = run("doctor", "--simulate", "--json");

    assertThat(code).isEqualTo(1);
    var array = Json.MAPPER.readTree(out());
    assertThat(array.isArray()).isTrue();
    assertThat(array)
        .anySatisfy(
            f -> {
              assertThat(f.path("check").asText()).isEqualTo("RBAC and admission manifests");
              assertThat(f.path("status").asText()).isEqualTo("FAIL");
              assertThat(f.path("fix").asText()).isNotBlank();
            });
    assertThat(array)
        .anySatisfy(
            f -> {
              assertThat(f.path("check").asText()).isEqualTo(DoctorFleet.REBALANCE_CHECK);
              assertThat(f.path("status").asText()).isEqualTo("WARN");
              assertThat(f.path("fix").asText()).contains("--capacity-rebalance");
            })
        .anySatisfy(
            f -> {
              assertThat(f.path("check").asText()).isEqualTo("last run: disruption-schedule");
              assertThat(f.path("status").asText()).isEqualTo("PASS");
              assertThat(f.path("detail").asText()).startsWith("last successful run ");
            });
  }

  @Test
  void shouldPassCapacityRebalancingOnceTheSpotGroupHasIt() throws Exception {
    try (var sim = new DoctorSimulation(ROOT, List.of())) {
      // Given the Spot node group's Auto Scaling group with Capacity Rebalancing turned on
      sim.capacityRebalance.put(DoctorSimulation.SPOT_ASG, true);

      var rebalance =
          byCheck(new Doctor(sim.clients, ROOT, DoctorSimulation.STACK).run())
              .get(DoctorFleet.REBALANCE_CHECK);

      assertThat(rebalance.status()).isEqualTo(Doctor.Status.PASS);
      assertThat(rebalance.detail()).startsWith("1 Spot node group(s)");
      // and the groups asked for were exactly the Spot one's
      assertThat(sim.stub.calls("DescribeAutoScalingGroups"))
          .singleElement()
          .satisfies(
              c -> {
                assertThat(c.params())
                    .containsEntry("AutoScalingGroupNames.member.1", DoctorSimulation.SPOT_ASG)
                    .doesNotContainKey("AutoScalingGroupNames.member.2");
              });
    }
  }

  @Test
  void shouldPassEachFunctionsLastRunWithItsTimeAndAskForTheDeclaredMetrics() throws Exception {
    try (var sim = new DoctorSimulation(ROOT, List.of(new ModelValidationInterceptor()))) {
      var now = java.time.Instant.now();
      var findings =
          byCheck(
              new Doctor(
                      sim.clients,
                      ROOT,
                      DoctorSimulation.STACK,
                      java.time.Clock.fixed(now, java.time.ZoneOffset.UTC))
                  .run());

      var schedule = findings.get("last run: disruption-schedule");
      assertThat(schedule.status()).isEqualTo(Doctor.Status.PASS);
      assertThat(schedule.detail()).matches("last successful run 20\\S+Z \\([0-9] min ago\\)");
      assertThat(findings.get("last run: interruption-drain").detail())
          .matches("last successful run \\S+ \\(3 h ago\\)");
      // and each function was asked about its own declared counters, the schedule over two of
      // its periods (rate(15 minutes): 30 min), the drain over 24 h
      var calls = sim.stub.calls(io.gpufleet.sim.aws.SimCloudWatch.OPERATION);
      assertThat(calls).hasSize(4);
      var byService = new TreeMap<String, AwsStubServer.Call>();
      calls.forEach(
          c ->
              byService.put(
                  c.params()
                      .get(
                          "MetricDataQueries.member.1.MetricStat.Metric.Dimensions.member.1.Value"),
                  c));
      var scheduleCall = byService.get(io.gpufleet.schedule.ScheduleMetrics.SERVICE);
      assertThat(scheduleCall.params())
          .containsEntry(
              "MetricDataQueries.member.1.MetricStat.Metric.MetricName",
              io.gpufleet.schedule.ScheduleMetrics.RUNS
                  .get(io.gpufleet.schedule.model.ScheduleOutcome.Status.RECONCILED)
                  .name())
          .containsEntry(
              "MetricDataQueries.member.1.MetricStat.Metric.Namespace",
              io.gpufleet.core.outcome.Metric.NAMESPACE)
          .doesNotContainKey("MetricDataQueries.member.2.Id");
      assertThat(window(scheduleCall)).isEqualTo(java.time.Duration.ofMinutes(30));
      assertThat(window(byService.get(io.gpufleet.drain.DrainMetrics.SERVICE)))
          .isEqualTo(java.time.Duration.ofHours(24));
      assertThat(window(byService.get(io.gpufleet.preflight.PreflightMetrics.SERVICE)))
          .isEqualTo(java.time.Duration.ofHours(48));
      assertThat(ContractViolations.drain()).isEmpty();
    }
  }

  @Test
  void shouldWarnWhenTheDrainHandledNoEventAndFailWhenTheScheduleStoppedReconciling()
      throws Exception {
    try (var sim = new DoctorSimulation(ROOT, List.of())) {
      // Given no drain event in 24 h and the last reconcile 40 min ago (two periods: 30 min)
      var drained =
          io.gpufleet.drain.DrainMetrics.events(
              io.gpufleet.drain.model.DrainOutcome.Status.DRAINED);
      sim.cloudWatch.clear(drained.name());
      sim.published(
          io.gpufleet.drain.DrainMetrics.SERVICE,
          drained,
          java.time.Instant.now().minus(java.time.Duration.ofHours(25)));
      var reconciled =
          io.gpufleet.schedule.ScheduleMetrics.RUNS.get(
              io.gpufleet.schedule.model.ScheduleOutcome.Status.RECONCILED);
      sim.cloudWatch.clear(reconciled.name());
      sim.published(
          io.gpufleet.schedule.ScheduleMetrics.SERVICE,
          reconciled,
          java.time.Instant.now().minus(java.time.Duration.ofMinutes(40)));
      sim.cloudWatch.clear(io.gpufleet.cost.CostMetrics.REPORTS_WRITTEN.name());

      var findings = new Doctor(sim.clients, ROOT, DoctorSimulation.STACK).run();

      var drain = byCheck(findings).get("last run: interruption-drain");
      assertThat(drain.status()).isEqualTo(Doctor.Status.WARN);
      assertThat(drain.detail()).contains("no interruption event handled in 24 h");
      var schedule = byCheck(findings).get("last run: disruption-schedule");
      assertThat(schedule.status()).isEqualTo(Doctor.Status.FAIL);
      assertThat(schedule.detail()).contains("rate(15 minutes)").contains("30 min");
      assertThat(schedule.fix()).contains("RunsInvalidPolicy");
      assertThat(byCheck(findings).get("last run: cost-report").status())
          .isEqualTo(Doctor.Status.WARN);
      assertThat(byCheck(findings).get("last run: capacity-preflight").status())
          .isEqualTo(Doctor.Status.PASS);
    }
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.CsvSource(
      delimiter = '|',
      value = {
        "rate(15 minutes) | PT15M",
        "rate(1 hour)     | PT1H",
        "rate(2 days)     | PT48H",
        "cron(0 6 * * ? *) | PT24H",
        "cron(*/10 * * * ? *) | PT10M",
        "cron(0 8 ? * MON-FRI *) | PT72H"
      })
  void shouldTakeTheLongestGapBetweenRunsAsTheSchedulesPeriod(String expression, String period) {
    var now = java.time.Instant.parse("2026-12-02T12:00:00Z");
    assertThat(DoctorFleet.period(expression, java.time.ZoneId.of("UTC"), now))
        .isEqualTo(java.time.Duration.parse(period));
  }

  @Test
  void shouldRefuseAnExpressionWithoutAPeriod() {
    var now = java.time.Instant.parse("2026-12-02T12:00:00Z");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> DoctorFleet.period("at(2026-12-24T08:00:00)", java.time.ZoneId.of("UTC"), now))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at(2026-12-24T08:00:00)");
  }

  private static java.time.Duration window(AwsStubServer.Call c) {
    return java.time.Duration.between(
        java.time.Instant.parse(c.params().get("StartTime")),
        java.time.Instant.parse(c.params().get("EndTime")));
  }

  @Test
  void shouldIgnoreFieldsTheServerAddsButNotAChangedOrMissingOne() throws Exception {
    var want =
        Json.MAPPER.readTree("{\"rules\":[{\"verbs\":[\"get\"],\"resources\":[\"nodes\"]}]}");
    var live =
        Json.MAPPER.readTree(
            "{\"rules\":[{\"verbs\":[\"get\"],\"resources\":[\"nodes\"],\"apiGroups\":[\"\"]}],\"x\":1}");
    assertThat(Doctor.firstDifference("", want, live)).isNull();
    var changed =
        Json.MAPPER.readTree("{\"rules\":[{\"verbs\":[\"list\"],\"resources\":[\"nodes\"]}]}");
    assertThat(Doctor.firstDifference("", want, changed)).startsWith("/rules/0/verbs/0");
    var fewer = Json.MAPPER.readTree("{\"rules\":[]}");
    assertThat(Doctor.firstDifference("", want, fewer)).isEqualTo("/rules");
  }

  private static Map<String, Doctor.Finding> byCheck(List<Doctor.Finding> findings) {
    var m = new TreeMap<String, Doctor.Finding>();
    findings.forEach(f -> m.put(f.check(), f));
    return m;
  }

  /** The operation name of a stub call: query Action, JSON target or rest-json request line. */
  interface AwsCall {
    static String operationName(io.gpufleet.sim.aws.AwsStubServer.Call c) {
      String op = c.operation();
      if (op.startsWith("GET ")) {
        return "Get";
      }
      return op.contains(".") ? op.substring(op.indexOf('.') + 1) : op;
    }
  }
}
