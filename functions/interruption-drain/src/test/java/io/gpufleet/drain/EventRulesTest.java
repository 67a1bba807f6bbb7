package io.gpufleet.drain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.core.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.event.ruler.Machine;

/**
 * The template's rules judged by EventBridge's own matching engine ({@code event-ruler}). The
 * processed template (both transforms, {@code deploy/processed_template.py}) is resolved for a
 * stack with lifecycle hooks on groups {@code gpu-a, gpu-b}, once per {@code DrainDelivery}; the
 * enabled rules' patterns go into one {@link Machine} per delivery. Every envelope of {@code
 * events/} and {@code events/corpus/} a function acts on must be matched by exactly the rule meant
 * for its kind; the same event from another account, from another source or with another
 * detail-type, and the variants the functions do not act on (a closed Health event, a pending
 * instance, another tool's lifecycle hook), by none.
 */
class EventRulesTest {
  static final String STACK = "gpufleet";
  static final String ACCOUNT = "123456789012";
  static final String PREFLIGHT_RULE = "CapacityPreflightFunctionQuotaAlarmStateChange";

  /** The rule meant for each kind, per delivery. */
  static final Map<String, Map<String, String>> RULE_FOR =
      Map.of(
          "direct",
          Map.of(
              "spot", "InterruptionDrainFunctionSpotInterruption",
              "rebalance", "InterruptionDrainFunctionRebalance",
              // bulk kinds go through their own queue in both deliveries (issue 26)
              "state-change", "DrainBulkEventsToQueueRule",
              "health", "DrainBulkEventsToQueueRule",
              "capacity", "InterruptionDrainFunctionCapacityReservationInterruption",
              "lifecycle", "LifecycleHookRule",
              "alarm", PREFLIGHT_RULE),
          "sqs",
          Map.of(
              "spot", "DrainEventsToQueueRule",
              "rebalance", "DrainEventsToQueueRule",
              "state-change", "DrainBulkEventsToQueueRule",
              "health", "DrainBulkEventsToQueueRule",
              "capacity", "DrainEventsToQueueRule",
              "lifecycle", "DrainEventsToQueueRule",
              "alarm", PREFLIGHT_RULE));

  static final Map<String, Machine> MACHINES = new LinkedHashMap<>();
  static final Map<String, List<String>> ENABLED = new LinkedHashMap<>();

  @BeforeAll
  static void loadTheProcessedTemplatesRules() throws Exception {
    for (String delivery : RULE_FOR.keySet()) {
      JsonNode doc = processedRules(delivery);
      var machine = new Machine();
      var names = new ArrayList<String>();
      for (JsonNode rule : doc.path("rules")) {
        if ("ENABLED".equals(rule.path("state").asText())) {
          machine.addRule(
              rule.path("id").asText(), Json.MAPPER.writeValueAsString(rule.path("pattern")));
          names.add(rule.path("id").asText());
        }
      }
      MACHINES.put(delivery, machine);
      ENABLED.put(delivery, names);
    }
  }

  /** Runs deploy/processed_template.py with the test venv's Python (scripts/test.sh makes it). */
  static JsonNode processedRules(String delivery) throws IOException, InterruptedException {
    Path root = PeerCorpusTest.corpusDir().getParent().getParent();
    Path python = root.resolve(".venv/bin/python");
    if (!Files.isExecutable(python)) {
      String why =
          python + " is missing: scripts/test.sh creates it (scripts/requirements-test.txt)";
      if ("true".equals(System.getenv("CI"))) {
        fail(why);
      }
      Assumptions.abort(why);
    }
    Path out =
        root.resolve("functions/interruption-drain/target/event-rules/" + delivery + ".json");
    var process =
        new ProcessBuilder(
                python.toString(),
                "deploy/processed_template.py",
                "--stack",
                STACK,
                "--account",
                ACCOUNT,
                "--param",
                "DrainDelivery=" + delivery,
                "--param",
                "LifecycleHookGroupNames=gpu-a,gpu-b",
                "--out",
                out.toString())
            .directory(root.toFile())
            .redirectErrorStream(true)
            .start();
    String log = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
      fail("deploy/processed_template.py failed:\n" + log);
    }
    return Json.MAPPER.readTree(Files.readAllBytes(out));
  }

  /** A fixture: an EventBridge envelope, the kind whose rule must take it (null: none may). */
  record Case(String name, ObjectNode event, String kind) {
    @Override
    public String toString() {
      return name;
    }
  }

  static String kindOf(JsonNode e) {
    String source = e.path("source").asText();
    String type = e.path("detail-type").asText(e.path("detail_type").asText());
    return switch (source + "|" + type) {
      case "aws.ec2|EC2 Spot Instance Interruption Warning" -> "spot";
      case "aws.ec2|EC2 Instance Rebalance Recommendation" -> "rebalance";
      case "aws.ec2|EC2 Instance State-change Notification" -> "state-change";
      case "aws.health|AWS Health Event" -> "health";
      case "aws.ec2|EC2 Capacity Reservation Instance Interruption Warning",
          "aws.ec2|EC2 Interruptible Capacity Reservation Instance Interruption Warning",
          "aws.ec2|Capacity Block Expiration Warning",
          "aws.ec2|Capacity Block Reservation Expiration Warning" ->
          "capacity";
      case "aws.autoscaling|EC2 Instance-terminate Lifecycle Action",
          "aws.autoscaling|EC2 Instance-launch Lifecycle Action" ->
          "lifecycle";
      case "aws.cloudwatch|CloudWatch Alarm State Change" -> "alarm";
      default -> null;
    };
  }

  /**
   * The envelopes of events/ and of the corpus, as this stack's account would receive them: the
   * account is the stack's, a lifecycle action is for this stack's hook on a configured group, an
   * alarm is one of this stack's quota alarms. The corpus manifest says which the drain acts on.
   */
  static List<Case> acted() throws IOException {
    var out = new ArrayList<Case>();
    Path events = PeerCorpusTest.corpusDir().getParent();
    try (var files = Files.list(events)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
        JsonNode e = Json.MAPPER.readTree(Files.readAllBytes(f));
        if (e.isObject() && kindOf(e) != null) {
          out.add(new Case("events/" + f.getFileName(), ours((ObjectNode) e), kindOf(e)));
        }
      }
    }
    for (JsonNode f : PeerCorpusTest.manifest().path("fixtures")) {
      String file = f.path("file").asText();
      String outcome = f.path("drain").asText();
      if (!file.endsWith(".json") || outcome.equals("REJECTED")) {
        continue;
      }
      JsonNode e =
          Json.MAPPER.readTree(Files.readAllBytes(PeerCorpusTest.corpusDir().resolve(file)));
      if (!e.isObject() || !e.has("source") || !(e.has("detail-type") || e.has("detail_type"))) {
        continue; // Auto Scaling's direct-to-SQS form: no rule involved
      }
      // a lifecycle action naming no hook (NTH's v2 bodies) is no hook of this stack's: the rules
      // take only hooks named <stack>-drain..., though the drain acts on one that reaches it
      boolean ownHook = !"lifecycle".equals(kindOf(e)) || e.path("detail").has("LifecycleHookName");
      boolean acts = !outcome.equals("NO_ACTION") && ownHook;
      out.add(new Case("corpus/" + file, ours((ObjectNode) e), acts ? kindOf(e) : null));
    }
    return out;
  }

  static ObjectNode ours(ObjectNode e) {
    ObjectNode copy = e.deepCopy();
    copy.put("account", ACCOUNT);
    // the EC2 user guide's Capacity Block samples spell the envelope key detail_type; EventBridge's
    // envelope (what its rules see) has detail-type
    if (copy.has("detail_type") && !copy.has("detail-type")) {
      copy.set("detail-type", copy.remove("detail_type"));
    }
    if ("lifecycle".equals(kindOf(copy)) && copy.path("detail").isObject()) {
      var detail = (ObjectNode) copy.path("detail");
      if (detail.has("LifecycleHookName")) {
        detail.put("LifecycleHookName", STACK + "-drain");
        detail.put("AutoScalingGroupName", "gpu-a");
      }
    }
    if ("alarm".equals(kindOf(copy))) {
      var resources = copy.putArray("resources");
      resources.add(
          "arn:aws:cloudwatch:us-east-1:"
              + ACCOUNT
              + ":alarm:"
              + STACK
              + "-quota-"
              + copy.path("detail").path("alarmName").asText().replaceFirst("^.*-quota-", ""));
    }
    return copy;
  }

  static Stream<Arguments> actedPerDelivery() throws IOException {
    var cases = acted();
    return RULE_FOR.keySet().stream().flatMap(d -> cases.stream().map(c -> Arguments.of(d, c)));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("actedPerDelivery")
  void shouldRouteEachEventTheFunctionsActOnByExactlyItsRule(String delivery, Case c)
      throws Exception {
    var matched =
        MACHINES.get(delivery).rulesForJSONEvent(Json.MAPPER.writeValueAsString(c.event()));
    if (c.kind() == null) {
      assertThat(matched).as("%s is not acted on: no rule may take it", c.name()).isEmpty();
    } else {
      assertThat(matched)
          .as("%s (%s) must be taken by its rule only", c.name(), c.kind())
          .containsExactly(RULE_FOR.get(delivery).get(c.kind()));
    }
  }

  /** What must reach no rule: each acted-on event changed in one respect. */
  static Stream<Arguments> negatives() throws IOException {
    var out = new ArrayList<Arguments>();
    for (Case c : acted()) {
      if (c.kind() == null) {
        continue;
      }
      Map<String, Consumer<ObjectNode>> changes = new LinkedHashMap<>();
      changes.put("from another account", e -> e.put("account", "999999999999"));
      changes.put("without account", e -> e.remove("account"));
      changes.put(
          "from another source", e -> e.put("source", "custom." + e.path("source").asText()));
      changes.put(
          "of another detail-type",
          e -> e.put("detail-type", e.path("detail-type").asText() + " Test"));
      switch (c.kind()) {
        case "health" -> {
          changes.put("closed", e -> ((ObjectNode) e.path("detail")).put("statusCode", "closed"));
          changes.put(
              "of another service", e -> ((ObjectNode) e.path("detail")).put("service", "RDS"));
          changes.put(
              "an issue, not a scheduled change",
              e -> ((ObjectNode) e.path("detail")).put("eventTypeCategory", "issue"));
        }
        case "state-change" -> {
          changes.put("pending", e -> ((ObjectNode) e.path("detail")).put("state", "pending"));
          changes.put("running", e -> ((ObjectNode) e.path("detail")).put("state", "running"));
        }
        case "lifecycle" -> {
          changes.put(
              "for another tool's hook",
              e -> ((ObjectNode) e.path("detail")).put("LifecycleHookName", "nth-hook"));
          changes.put(
              "for a group not configured",
              e -> ((ObjectNode) e.path("detail")).put("AutoScalingGroupName", "web"));
          changes.put(
              "a test notification",
              e ->
                  ((ObjectNode) e.path("detail"))
                      .put("LifecycleTransition", "autoscaling:TEST_NOTIFICATION"));
          changes.put(
              "of a warm-pool or future transition",
              e -> ((ObjectNode) e.path("detail")).put("LifecycleTransition", "test:INVALID"));
        }
        case "alarm" ->
            changes.put(
                "of another stack's alarm",
                e ->
                    e.putArray("resources")
                        .add(
                            "arn:aws:cloudwatch:us-east-1:"
                                + ACCOUNT
                                + ":alarm:other-quota-P-Spot"));
        default -> {}
      }
      for (var change : changes.entrySet()) {
        if (c.kind().equals("lifecycle") && !c.event().path("detail").has("LifecycleHookName")) {
          continue;
        }
        ObjectNode e = c.event().deepCopy();
        change.getValue().accept(e);
        for (String delivery : RULE_FOR.keySet()) {
          out.add(Arguments.of(delivery, c.name() + " " + change.getKey(), e));
        }
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("negatives")
  void shouldRouteNoEventOfAnotherAccountSourceOrKind(String delivery, String name, ObjectNode e)
      throws Exception {
    assertThat(MACHINES.get(delivery).rulesForJSONEvent(Json.MAPPER.writeValueAsString(e)))
        .as(name)
        .isEmpty();
  }

  @Test
  void shouldTestEveryEnabledRuleAndEveryKind() throws IOException {
    var cases = acted();
    for (String delivery : RULE_FOR.keySet()) {
      var meant = new java.util.TreeSet<>(RULE_FOR.get(delivery).values());
      assertThat(new java.util.TreeSet<>(ENABLED.get(delivery)))
          .as("the rules enabled with DrainDelivery=%s", delivery)
          .isEqualTo(meant);
    }
    assertThat(cases.stream().map(Case::kind).filter(k -> k != null).distinct())
        .containsExactlyInAnyOrderElementsOf(RULE_FOR.get("direct").keySet());
  }
}
