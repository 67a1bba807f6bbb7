package io.gpufleet.drain.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.json.Json;
import io.gpufleet.sim.DemoFleet;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimEvents;
import io.gpufleet.sim.SimTime;
import io.gpufleet.testkit.aws.AwsEmulatorExtension;
import io.gpufleet.testkit.lambda.LambdaRuntime.Mode;
import io.gpufleet.testkit.lambda.RuntimeTier;
import io.gpufleet.testkit.lambda.RuntimeTierFunction;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Lambda runtime tier: the shaded drain jar under the Runtime Interface Emulator with the real
 * runtime interface client, configured from template.yaml, with SnapStart container credentials and
 * with environment credentials; EKS and EventBridge from moto, the cluster simulated.
 */
class DrainLambdaRuntimeIT {
  static final RuntimeTierFunction FUNCTION =
      new RuntimeTierFunction("InterruptionDrainFunction", "interruption-drain", DemoFleet.CLUSTER);

  @RegisterExtension
  static final AwsEmulatorExtension AWS = AwsEmulatorExtension.forServices("eks", "events");

  static Path root;
  SimCluster cluster;
  @TempDir static Path work;

  @BeforeAll
  static void createTheEksCluster() {
    root = RuntimeTier.repositoryRoot();
    FUNCTION.createEksCluster(AWS.emulator());
  }

  @BeforeEach
  void startTheDemoFleet() {
    // real (accelerated) time on purpose: the function runs in another process, under the Lambda
    // runtime emulator, on its own system clock, which no virtual time can drive; pods terminate
    // 40 times faster than that clock runs
    cluster = SimCluster.start(new SimTime(Instant.now(), 40));
    DemoFleet.populate(cluster);
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  RuntimeTier.Result run(Path template, Mode mode) throws IOException {
    var event =
        Json.MAPPER.readTree(
            root.resolve("events/spot-interruption-warning-inference.json").toFile());
    var setup =
        FUNCTION.setup(
            template,
            RuntimeTierFunction.STACK,
            AWS.emulator(),
            cluster.url(),
            work,
            // the continuation queue's URL (what Ref answers); a Spot warning sends nothing to it
            Map.of(
                "LifecycleQueue",
                "https://sqs.us-east-1.amazonaws.com/"
                    + RuntimeTierFunction.ACCOUNT
                    + "/"
                    + RuntimeTierFunction.STACK
                    + "-LifecycleQueue"));
    return RuntimeTierFunction.run(setup, mode, SimEvents.rebase(event, Instant.now()));
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void shouldDrainTheNodeWithTheCredentialsLambdaHandsOut(Mode mode) throws IOException {
    // Given the template's drain function, When a Spot warning arrives through the emulator
    var r = run(root.resolve("template.yaml"), mode);

    // Then it answers the drained node, the runtime's lifecycle and telemetry as Lambda's
    assertThat(RuntimeTierFunction.problems(r)).isEmpty();
    var outcome = r.body().get(0);
    assertThat(outcome.path("status").asText()).as(r.invocation().body()).isEqualTo("DRAINED");
    assertThat(outcome.path("node").asText()).isEqualTo(DemoFleet.NODES.get(2).name());
    assertThat(
            cluster.node(DemoFleet.NODES.get(2).name()).orElseThrow().getSpec().getUnschedulable())
        .isTrue();
    // with EKS DescribeCluster and the outcome event signed as Lambda's credentials allow
    assertThat(r.aws()).extracting(c -> c.service()).contains("eks", "events");
    if (mode == Mode.SNAP_START) {
      // the beforeCheckpoint priming ran a whole drain against its loopback server, which left
      // no socket for the snapshot (and it signed nothing: every INIT call is checked above)
      var messages = r.logs().stream().map(l -> l.path("message").asText()).toList();
      assertThat(messages)
          .anySatisfy(
              m ->
                  assertThat(m)
                      .startsWith("snapstart priming drain: ")
                      .contains(" evictions (")
                      .endsWith(" 0 sockets left to the loopback server"));
      assertThat(messages).noneMatch(m -> m.startsWith("snapstart priming drain incomplete"));
      assertThat(messages).noneMatch(m -> m.startsWith("snapstart priming drain skipped"));
    }
    assertThat(r.emf())
        .anySatisfy(
            e ->
                assertThat(
                        e.path("EventsDrained").asInt() == 1 && e.path("PodsEvicted").asInt() == 5)
                    .isTrue());
  }

  /** Template edits the code does not follow, and what the failure must name. */
  static Stream<Arguments> templatesTheCodeDisagreesWith() {
    return Stream.of(
        // a handler string with a typo: the runtime cannot load the class
        Arguments.of(
            "io.gpufleet.drain.wiring.DrainHandler::handleRequest",
            "io.gpufleet.drain.DrainHandlr::handleRequest",
            "ClassNotFoundException"),
        // EKS_CLUSTER_NAME set where the code reads CLUSTER_NAME: INIT fails and names it
        Arguments.of(
            "          CLUSTER_NAME: !Ref ClusterName\n          DRAIN_FORCE_DELETE",
            "          EKS_CLUSTER_NAME: !Ref ClusterName\n          DRAIN_FORCE_DELETE",
            "CLUSTER_NAME"));
  }

  @ParameterizedTest
  @MethodSource("templatesTheCodeDisagreesWith")
  void shouldFailWhenTheTemplateDisagreesWithTheCode(String from, String to, String named)
      throws IOException {
    // Given a template edited so that the code no longer matches it
    Path template = RuntimeTier.mutatedTemplate(work, from, to);

    // When the function is invoked, Then the invocation fails naming why, and nothing drained
    var r = run(template, Mode.ON_DEMAND);
    assertThat(r.invocation().body()).contains(named);
    assertThat(r.body().has("status")).isFalse();
    assertThat(
            cluster.node(DemoFleet.NODES.get(2).name()).orElseThrow().getSpec().getUnschedulable())
        .isNotEqualTo(Boolean.TRUE);
  }
}
