package io.gpufleet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.json.Json;
import io.gpufleet.deploy.Rehearsal;
import io.gpufleet.deploy.RehearsalSimulation;
import io.gpufleet.sim.DemoFleet;
import io.gpufleet.testkit.aws.contract.ContractViolations;
import io.gpufleet.testkit.aws.contract.ModelValidationInterceptor;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code gpufleet rehearse} against the simulated account, FIS and cluster. */
class RehearseCommandTest extends CapturedCli {
  private static final List<String> WRITES =
      List.of("CreateTags", "DeleteTags", "POST /experiments");

  private final ByteArrayOutputStream cmdOut = new ByteArrayOutputStream();
  private final ByteArrayOutputStream cmdErr = new ByteArrayOutputStream();

  private int rehearse(RehearsalSimulation sim, String node, boolean yes, boolean json)
      throws Exception {
    var cmd =
        new RehearseCommand(
            new PrintStream(cmdOut, true, StandardCharsets.UTF_8),
            new PrintStream(cmdErr, true, StandardCharsets.UTF_8));
    cmd.node = node;
    cmd.yes = yes;
    cmd.json = json;
    return cmd.rehearse(sim.clients(), sim, sim.cfn, RehearsalSimulation.STACK);
  }

  private String cmdOut() {
    return cmdOut.toString(StandardCharsets.UTF_8);
  }

  private String cmdErr() {
    return cmdErr.toString(StandardCharsets.UTF_8);
  }

  private static void assertNoWrite(RehearsalSimulation sim) {
    assertThat(sim.stub.calls())
        .extracting(io.gpufleet.sim.aws.AwsStubServer.Call::operation)
        .noneMatch(op -> WRITES.contains(op) || op.startsWith("DELETE "));
    assertThat(sim.cluster.requests())
        .allMatch(r -> r.method().equals("GET"), "only reads reached the cluster");
  }

  @Test
  void shouldRefuseAnOnDemandNodeBeforeAnyWrite() throws Exception {
    try (var sim = new RehearsalSimulation(List.of(new ModelValidationInterceptor()))) {
      var onDemand = DemoFleet.NODES.get(1);

      int code = rehearse(sim, onDemand.name(), true, false);

      assertThat(code).isEqualTo(2);
      assertThat(cmdErr())
          .contains(
              "node "
                  + onDemand.name()
                  + " (instance "
                  + onDemand.instanceId()
                  + ") is On-Demand, not Spot");
      assertNoWrite(sim);
    }
  }

  @Test
  void shouldRefuseANodeOutsideTheCluster() throws Exception {
    try (var sim = new RehearsalSimulation(List.of(new ModelValidationInterceptor()))) {
      String foreign = sim.addForeignNode();

      assertThat(rehearse(sim, foreign, true, false)).isEqualTo(2);
      assertThat(cmdErr())
          .contains("is outside cluster " + DemoFleet.CLUSTER)
          .contains("it belongs to " + RehearsalSimulation.OTHER_CLUSTER);

      assertThat(rehearse(sim, "ip-10-7-7-7.ec2.internal", true, false)).isEqualTo(2);
      assertThat(cmdErr())
          .contains(
              "node ip-10-7-7-7.ec2.internal is not a node of cluster "
                  + DemoFleet.CLUSTER
                  + " (no such node)");
      assertNoWrite(sim);
    }
  }

  @Test
  void shouldRefuseASecondRehearsalWhileOneRuns() throws Exception {
    try (var sim = new RehearsalSimulation(List.of(new ModelValidationInterceptor()))) {
      String other = sim.runningElsewhere();

      int code = rehearse(sim, null, true, false);

      assertThat(code).isEqualTo(2);
      assertThat(cmdErr())
          .contains("a rehearsal is already under way: experiment " + other)
          .contains("is running")
          .contains("aws fis stop-experiment --id " + other);
      assertNoWrite(sim);
    }
  }

  @Test
  void shouldOnlyShowTheDryRunAndThePlanWithoutYes() throws Exception {
    try (var sim = new RehearsalSimulation(List.of(new ModelValidationInterceptor()))) {
      int code = rehearse(sim, null, false, false);

      assertThat(code).isZero();
      assertThat(cmdOut())
          .contains("Dry run for node ")
          .contains("With --yes, rehearse would:")
          .contains("start experiment template " + RehearsalSimulation.TEMPLATE_ID)
          .contains("Nothing was written");
      assertNoWrite(sim);
    }
  }

  @Test
  void shouldFollowTheChainAndEndTheSortedTimelineWithTheVerdict() throws Exception {
    ContractViolations.drain();
    long validatedBefore = ContractViolations.validatedRequests();
    try (var sim = new RehearsalSimulation(List.of(new ModelValidationInterceptor()))) {
      int code = rehearse(sim, null, true, true);

      var result = Json.MAPPER.readTree(cmdOut());
      var whats = new java.util.ArrayList<String>();
      Instant last = Instant.MIN;
      for (var step : result.path("timeline")) {
        Instant at = Instant.parse(step.path("at").asText());
        assertThat(at).isAfterOrEqualTo(last);
        last = at;
        whats.add(step.path("what").asText());
      }
      assertThat(whats)
          .contains(
              "instance tagged",
              "experiment started",
              "warning sent",
              "node cordoned",
              "evictions issued",
              "all pods gone",
              "drain outcome event received",
              "instance terminated",
              "replacement node Ready");
      assertThat(whats.indexOf("warning sent")).isLessThan(whats.indexOf("node cordoned"));
      assertThat(whats.indexOf("all pods gone")).isLessThan(whats.indexOf("instance terminated"));
      assertThat(result.path("verdict").asText()).startsWith("PASS: all pods gone");
      assertThat(result.path("passed").asBoolean()).isTrue();
      assertThat(code).isZero();
      // the experiment was the stack's template's, the tag is gone, and every FIS and EC2 request
      // was valid for its service model
      assertThat(sim.stub.calls("POST /experiments"))
          .singleElement()
          .satisfies(c -> assertThat(c.body()).contains(RehearsalSimulation.TEMPLATE_ID));
      assertThat(sim.stub.calls("CreateTags")).hasSize(1);
      assertThat(sim.stub.calls("DeleteTags")).hasSize(1);
      assertThat(ContractViolations.drain()).isEmpty();
      assertThat(ContractViolations.validatedRequests() - validatedBefore)
          .isGreaterThanOrEqualTo(sim.stub.calls().size());
    }
  }

  @Test
  void shouldPrintTheTimelineAndFailTheVerdictWhenPodsOutliveTheDeadline() throws Exception {
    try (var sim = new RehearsalSimulation(List.of())) {
      // the p5 Spot node runs a training pod whose PDB allows no disruption
      int code = rehearse(sim, DemoFleet.NODES.get(0).name(), true, false);

      String[] lines = cmdOut().strip().split("\n");
      assertThat(lines[lines.length - 1])
          .startsWith("verdict: FAIL: the drain did not evict every pod (PARTIAL")
          .contains("llm-finetune");
      assertThat(code).isEqualTo(1);
    }
  }

  @Test
  void shouldRunFromTheCommandLineWithSimulate() {
    int code = run("rehearse", "--simulate", "--yes");

    String[] lines = out().strip().split("\n");
    assertThat(lines[lines.length - 1]).startsWith("verdict: PASS");
    assertThat(out()).contains("warning sent").contains("replacement node Ready");
    assertThat(code).isZero();
  }

  @Test
  void shouldStopTheExperimentAndUntagTheInstanceWhenInterrupted() throws Exception {
    try (var sim = new RehearsalSimulation(List.of(new ModelValidationInterceptor()))) {
      var rehearsal =
          new Rehearsal(sim.clients(), sim, RehearsalSimulation.STACK, DemoFleet.CLUSTER);
      var target = rehearsal.choose(java.util.Optional.empty());
      String id =
          rehearsal.start(target, RehearsalSimulation.TEMPLATE_ID, new java.util.ArrayList<>());

      // When the user interrupts before the warning goes (what the shutdown hook runs)
      rehearsal.stop(id, target.instanceId());
      sim.pass(java.time.Duration.ofMinutes(3));

      // Then the experiment is stopped, the tag removed, and no warning reached the drain
      assertThat(sim.stub.calls("DELETE /experiments/" + id)).hasSize(1);
      assertThat(sim.fis.getExperiment(r -> r.id(id)).experiment().state().statusAsString())
          .isEqualTo("stopped");
      assertThat(sim.stub.calls("DeleteTags")).hasSize(1);
      assertThat(sim.drainOutcome()).isEmpty();
      // and a new rehearsal is no longer refused
      rehearsal.refuseIfRunning(RehearsalSimulation.TEMPLATE_ID);
    }
  }

  @Test
  void shouldFollowTheChainFromTheClusterWhenTheDrainRunsElsewhere() throws Exception {
    try (var sim =
        new RehearsalSimulation(List.of(new ModelValidationInterceptor())).observedFromOutside()) {
      // Given the drain's outcome is seen only as a real account shows it (its node Event)
      int code = rehearse(sim, null, true, true);

      var result = Json.MAPPER.readTree(cmdOut());
      var byWhat = new java.util.HashMap<String, String>();
      result
          .path("timeline")
          .forEach(s -> byWhat.put(s.path("what").asText(), s.path("detail").asText()));
      assertThat(byWhat)
          .containsKeys(
              "warning sent",
              "node cordoned",
              "evictions issued",
              "all pods gone",
              "instance terminated",
              "replacement node Ready");
      assertThat(byWhat.get("drain outcome event received")).startsWith("GpuFleetDrained: ");
      assertThat(result.path("verdict").asText()).startsWith("PASS");
      assertThat(code).isZero();
      assertThat(sim.published()).isPresent();
    }
  }
}
