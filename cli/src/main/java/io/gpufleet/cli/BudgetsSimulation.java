package io.gpufleet.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.LocalContext;
import io.gpufleet.core.outcome.NotifierPort;
import io.gpufleet.core.time.VirtualTime;
import io.gpufleet.scenario.ProjectHome;
import io.gpufleet.schedule.PolicySourcePort;
import io.gpufleet.schedule.ScheduleSettings;
import io.gpufleet.schedule.ScheduleTick;
import io.gpufleet.schedule.model.ScheduleOutcome;
import io.gpufleet.schedule.wiring.ScheduleHandler;
import io.gpufleet.schedule.wiring.ScheduleWiring;
import io.gpufleet.sim.DemoWorkloads;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimObjects;
import io.gpufleet.sim.SimTime;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The disruption-schedule part of {@code gpufleet simulate}: the schedule ticks in events/ (day and
 * night) go through the real {@link ScheduleHandler} against the simulated cluster's NodePools and
 * workloads with the example policy; then somebody scales a workload by hand during the night, the
 * next morning's tick restores the rest, and a repeat delivery is a no-op. Each tick runs with the
 * clock at its scheduled time.
 */
final class BudgetsSimulation {
  static final String POLICY = "deploy/policy/disruption-schedule.example.yaml";
  private final PrintStream out;
  private final PrintStream err;

  BudgetsSimulation(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  static boolean handles(JsonNode event) {
    return ScheduleTick.DETAIL_TYPE.equals(event.path("detail-type").asText());
  }

  private record Step(
      String label, Instant at, ScheduleOutcome outcome, Map<String, String> state) {}

  void run(List<Path> files) throws IOException {
    var ticks = new ArrayList<JsonNode>();
    for (Path f : files) {
      JsonNode e = Json.MAPPER.readTree(Files.readAllBytes(f));
      if (handles(e)) {
        ((ObjectNode) e).put("_file", f.getFileName().toString());
        ticks.add(e);
      }
    }
    if (ticks.isEmpty()) {
      return;
    }
    ticks.sort(Comparator.comparing(t -> t.path("detail").path("scheduledTime").asText()));
    Path policyFile = ProjectHome.path().resolve(POLICY);
    var time = new VirtualTime(Instant.EPOCH);
    Clock clock = time.clock();
    try (var cluster = SimCluster.start(SimTime.realTime());
        KubernetesClient client = cluster.newClient()) {
      DemoWorkloads.populate(cluster);
      var metrics = new Recorders.RecordingMetrics();
      var publisher = new Recorders.RecordingPublisher();
      var policy = PolicySourcePort.file(policyFile);
      var service =
          ScheduleWiring.service(
              client,
              ScheduleSettings.defaults("gpu-prod", policy.name()),
              policy,
              metrics,
              publisher,
              NotifierPort.NONE,
              clock);
      var handler = new ScheduleHandler(service, metrics);
      SimObjects objects = cluster.objects();
      err.printf(
          "%nDisruption schedule: %d schedule ticks from events/ through the real handler, policy %s%n",
          ticks.size(), POLICY);
      var steps = new ArrayList<Step>();
      steps.add(new Step("before", null, null, state(objects)));
      JsonNode day = null;
      for (JsonNode t : ticks) {
        steps.add(tick(handler, time, objects, t, Duration.ZERO, t.path("_file").asText()));
        if (t.path("_file").asText().contains("business")) {
          day = t;
        }
        if (t.path("_file").asText().contains("night")) {
          objects.scale("Deployment", "ml", "embeddings", 1);
          err.println("  (an engineer scales ml/embeddings to 1 by hand during the night)");
        }
      }
      if (day != null) {
        var lead = leadStep(policyFile, day);
        if (lead.isPresent()) {
          steps.add(
              tick(
                  handler,
                  time,
                  objects,
                  day,
                  lead.get().shift(),
                  day.path("_file").asText() + " +1 day, " + lead.get().label()));
        }
        var next =
            tick(
                handler,
                time,
                objects,
                day,
                Duration.ofDays(1),
                day.path("_file").asText() + " +1 day");
        steps.add(next);
        var again =
            tick(handler, time, objects, day, Duration.ofDays(1), "same tick delivered again");
        steps.add(again);
      }
      print(steps, publisher, metrics);
    }
  }

  record Lead(Duration shift, String label) {}

  /**
   * A tick inside the lead time of the first window that has one, on the day after {@code day}: two
   * minutes after the lead starts, so the simulation shows the restore ahead of the window.
   */
  static java.util.Optional<Lead> leadStep(Path policyFile, JsonNode day) throws IOException {
    var policy =
        io.gpufleet.schedule.policy.PolicyParser.parse(
            Files.readString(policyFile), policyFile.toString());
    Instant dayAt = Instant.parse(day.path("detail").path("scheduledTime").asText());
    for (var w : policy.windows()) {
      if (w.leadTime().isZero()) {
        continue;
      }
      var nextDay = dayAt.atZone(policy.zone()).toLocalDate().plusDays(1);
      if (!w.days().contains(nextDay.getDayOfWeek())) {
        continue;
      }
      Instant start =
          nextDay
              .atTime(w.startMinute() / 60, w.startMinute() % 60)
              .atZone(policy.zone())
              .toInstant();
      Instant at = start.minus(w.leadTime()).plus(Duration.ofMinutes(2));
      return java.util.Optional.of(
          new Lead(
              Duration.between(dayAt, at),
              "lead " + io.gpufleet.schedule.policy.PolicyParser.durationText(w.leadTime())));
    }
    return java.util.Optional.empty();
  }

  private Step tick(
      ScheduleHandler handler,
      VirtualTime clock,
      SimObjects objects,
      JsonNode tick,
      Duration shift,
      String label)
      throws IOException {
    ObjectNode event = tick.deepCopy();
    event.remove("_file");
    Instant at = Instant.parse(event.path("detail").path("scheduledTime").asText()).plus(shift);
    ((ObjectNode) event.get("detail")).put("scheduledTime", at.toString());
    event.put("time", at.toString());
    clock.set(at.plusSeconds(3));
    var output = new ByteArrayOutputStream();
    handler.handleRequest(
        new ByteArrayInputStream(Json.MAPPER.writeValueAsBytes(event)),
        output,
        new LocalContext("disruption-schedule", 60_000));
    var outcome = Json.MAPPER.readValue(output.toByteArray(), ScheduleOutcome.class);
    return new Step(label, at, outcome, state(objects));
  }

  /** What the simulation shows per object: budgets, consolidateAfter, replicas, pause. */
  static Map<String, String> state(SimObjects o) {
    var s = new LinkedHashMap<String, String>();
    for (String pool : List.of("gpu-h100", "gpu-l40s", "cpu-general")) {
      JsonNode d = o.require("NodePool", null, pool).at("/spec/disruption");
      var budgets = new ArrayList<String>();
      d.path("budgets").forEach(b -> budgets.add(b.path("nodes").asText()));
      s.put(
          "NodePool " + pool,
          String.join("+", budgets) + " after " + d.path("consolidateAfter").asText());
    }
    for (String[] w :
        new String[][] {
          {"Deployment", "ml", "chat-inference"},
          {"Deployment", "ml", "embeddings"},
          {"StatefulSet", "ml", "vector-db"},
          {"Deployment", "ml", "fraud-scoring"}
        }) {
      s.put(
          w[0] + " " + w[1] + "/" + w[2],
          "replicas " + o.require(w[0], w[1], w[2]).at("/spec/replicas").asInt());
    }
    for (String so : List.of("batch-worker", "reindexer")) {
      JsonNode p =
          o.require("ScaledObject", "jobs", so)
              .at("/metadata/annotations/autoscaling.keda.sh~1paused-replicas");
      s.put(
          "ScaledObject jobs/" + so, p.isMissingNode() ? "not paused" : "paused at " + p.asText());
    }
    s.put(
        "HPA jobs/api",
        "minReplicas "
            + o.require("HorizontalPodAutoscaler", "jobs", "api").at("/spec/minReplicas").asInt());
    return s;
  }

  private void print(
      List<Step> steps,
      Recorders.RecordingPublisher publisher,
      Recorders.RecordingMetrics metrics) {
    out.println();
    out.println("Disruption schedule (policy " + POLICY + ", time zone Europe/Berlin)");
    var runs =
        new Table(
            "TICK", "SCHEDULED (UTC)", "LOCAL TIME", "STATUS", "WINDOW", "WRITES", "HELD/SKIPPED");
    for (Step s : steps) {
      if (s.outcome() == null) {
        continue;
      }
      var o = s.outcome();
      runs.add(
          s.label(),
          s.at(),
          o.localTime() == null ? "-" : o.localTime().substring(0, 16).replace('T', ' '),
          o.status(),
          o.window() == null
              ? "-"
              : o.window() + ("LEAD".equals(o.windowReason()) ? " (lead time)" : ""),
          o.writes(),
          o.notices().size());
    }
    out.print(runs.render());
    var headers = new ArrayList<String>();
    headers.add("OBJECT");
    steps.forEach(s -> headers.add(s.label().replace(".json", "")));
    var table = new Table(headers.toArray(String[]::new));
    for (String object : steps.get(0).state().keySet()) {
      var row = new ArrayList<Object>();
      row.add(object);
      steps.forEach(s -> row.add(s.state().get(object)));
      table.add(row.toArray());
    }
    out.println();
    out.print(table.render());
    for (Step s : steps) {
      if (s.outcome() != null && !s.outcome().changes().isEmpty()) {
        out.println();
        out.println("Changes of " + s.label() + ":");
        BudgetsCommand.print(s.outcome(), out);
      }
    }
    out.println();
    out.println(
        "Published "
            + publisher.published.size()
            + " schedule outcome events. Metrics: "
            + metrics.snapshot());
  }
}
