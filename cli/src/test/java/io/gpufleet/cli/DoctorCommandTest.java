package io.gpufleet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.cli.confinement.ConfinementRender;
import io.gpufleet.core.json.Json;
import io.gpufleet.sim.aws.contract.ContractViolations;
import io.gpufleet.sim.aws.contract.ModelValidationInterceptor;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** {@code gpufleet doctor} against the simulated stack and cluster. */
class DoctorCommandTest extends CapturedCli {
  private static final Path ROOT = EnvironmentReference.findRoot(Path.of(""));

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
      assertThat(handlers.fix()).contains("DrainLeaveKarpenterNodes=true");
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
              "schedule policy");
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
