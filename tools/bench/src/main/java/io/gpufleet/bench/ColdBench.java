package io.gpufleet.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.catalog.Regions;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.json.Json;
import io.gpufleet.scenario.ProjectHome;
import io.gpufleet.scenario.SyntheticEvents;
import io.gpufleet.sim.DemoWorkloads;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimTime;
import io.gpufleet.sim.aws.PricingStub;
import io.gpufleet.sim.aws.SimCapacityAccount;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * {@code gpufleet bench cold [--function F]}: a fresh JVM runs the function's deployment jar
 * ({@code java -jar F-lambda.jar EVENT}, its LocalInvoke main) on one event, with the JVM flags of
 * the Lambda java21 runtime for the memory size, inside the CPU share of that size; the servers it
 * talks to run here, outside. A run is timed from the JVM's start to the handler's answer on
 * stdout, as a Lambda cold start ends at the response; the child's exit after it (closing its
 * clients, JVM shutdown) is reported beside it, not counted. Baseline in the same run: the JVM
 * alone ({@code -version}) with the same flags in the same share. The child's environment is the
 * deployed one ({@link ColdAws}): the cluster found with EKS DescribeCluster and reached with an
 * EKS token, the outcome published to the default bus; a run whose event did not arrive fails.
 */
public final class ColdBench {
  public static final long TARGET_MS = 1500;
  static final long TARGET_JAR_BYTES = 25L * 1024 * 1024;

  private final PrintStream err;

  public ColdBench(PrintStream err) {
    this.err = err;
  }

  /** What one cold run needs: the event, the environment, and the servers behind them. */
  interface Scenario extends AutoCloseable {
    /** Prepares run {@code n} (fresh state where a repeat would find nothing left to do). */
    Map<String, String> prepare(int n, Path event) throws Exception;

    /** Whether the handler's answer is the outcome the scenario expects. */
    String status(JsonNode answer);

    String expected();

    @Override
    void close();
  }

  public Map<String, Object> run(String function, int runs, Confinement share) throws Exception {
    Path jar = lambdaJar(function);
    share.announce(err, "cold --function " + function);
    try (ColdAws aws = ColdAws.start(share.jvm().home());
        Scenario scenario = scenario(function, aws)) {
      var coldMs = new ArrayList<Long>();
      var outcomeEvents = new ArrayList<Integer>();
      var baselineMs = new ArrayList<Long>();
      var exitedMs = new ArrayList<Long>();
      String lastStatus = null;
      boolean allExpected = true;
      long warmupMs = -1;
      // run 0 is not counted: it is the first work of the servers in this JVM (their code is not
      // compiled yet) and the first read of the jar from disk, neither of which is the function's
      for (int i = 0; i <= runs; i++) {
        Path event = Files.createTempFile("gpufleet-cold", ".json");
        try {
          var env = scenario.prepare(i, event);
          var rest = new ArrayList<String>(diagnosticOptions(i));
          rest.addAll(aws.functionJvmOptions());
          rest.addAll(List.of("-jar", jar.toString(), event.toString()));
          var cmd = share.java(rest);
          var pb =
              new ProcessBuilder(cmd)
                  .redirectError(
                      Boolean.getBoolean("gpufleet.bench.childStderr")
                          ? ProcessBuilder.Redirect.INHERIT
                          : ProcessBuilder.Redirect.DISCARD);
          pb.environment().keySet().removeIf(k -> k.startsWith("AWS_") || k.equals("KUBECONFIG"));
          pb.environment().remove("OUTCOME_EVENT_BUS");
          pb.environment().remove("NOTIFY_TOPIC_ARN");
          pb.environment().remove("SLACK_WEBHOOK_SECRET");
          pb.environment().remove("SLACK_WEBHOOK_URL");
          pb.environment().remove("JAVA_TOOL_OPTIONS");
          pb.environment().put("AWS_REGION", "us-east-1");
          pb.environment().put("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "" + share.share().memoryMb());
          // what Lambda's runtime sets for a function without SnapStart ($LATEST, on-demand): the
          // EMF library, for one, detects Lambda by the function name and then writes metrics to
          // stdout; without it, it falls back to its agent sink (TCP, a retry thread)
          pb.environment().put("AWS_EXECUTION_ENV", "AWS_Lambda_java21");
          pb.environment().put("AWS_LAMBDA_FUNCTION_NAME", "gpufleet-" + function);
          pb.environment().put("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST");
          pb.environment().put("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand");
          pb.environment().put("AWS_LAMBDA_LOG_GROUP_NAME", "/aws/lambda/gpufleet-" + function);
          pb.environment().put("AWS_LAMBDA_LOG_STREAM_NAME", "bench-cold-" + i);
          pb.environment().put("POWERTOOLS_LOG_LEVEL", "WARN");
          pb.environment().put("POWERTOOLS_SERVICE_NAME", function);
          pb.environment().put("POWERTOOLS_METRICS_NAMESPACE", "GpuFleetOps");
          pb.environment().putAll(env);
          int eventsBefore = aws.outcomeEvents();
          long start = System.nanoTime();
          var p = pb.start();
          Answered out = Answered.read(p.getInputStream(), System::nanoTime);
          if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("cold run did not finish within 60 s");
          }
          long exitMs = (System.nanoTime() - start) / 1_000_000;
          long ms = (out.answeredAtNanos() - start) / 1_000_000;
          String stdout = out.stdout();
          String answer = out.answer();
          if (p.exitValue() != 0 || answer.isEmpty()) {
            throw new IllegalStateException("cold run exited " + p.exitValue() + ": " + stdout);
          }
          lastStatus = scenario.status(Json.MAPPER.readTree(answer));
          // published before the answer (the outcome is published, then returned)
          int published = aws.outcomeEvents() - eventsBefore;
          if (published < 1) {
            allExpected = false;
            err.println("bench cold: run " + i + " published no outcome event on the bus");
          }
          if (Boolean.getBoolean("gpufleet.bench.childStderr")) {
            err.println("bench cold: run " + i + " answered " + answer);
          }
          if (!scenario.expected().equals(lastStatus)) {
            allExpected = false;
            err.println(
                "bench cold: run "
                    + i
                    + " answered "
                    + stdout.substring(0, Math.min(stdout.length(), 800)));
          }
          if (i == 0) {
            warmupMs = ms;
          } else {
            coldMs.add(ms);
            exitedMs.add(exitMs);
            outcomeEvents.add(published);
          }
        } finally {
          Files.deleteIfExists(event);
        }
        if (i > 0) {
          baselineMs.add(jvmAlone(share));
        }
      }
      long median = median(coldMs);
      long jarBytes = Files.size(jar);
      var r = new LinkedHashMap<String, Object>();
      r.put("bench", "cold");
      r.put("function", function);
      r.put("runs", runs);
      // the function's JVM (the CLI's may be newer than Lambda's java21)
      r.put("java", share.jvm().version());
      r.put("firstEventHandledMsMedian", median);
      r.put("firstEventHandledMs", coldMs);
      r.put("uncountedFirstRunMs", warmupMs);
      // not part of a Lambda cold start: after the answer Lambda freezes the environment, while
      // LocalInvoke closes its clients and the JVM exits
      r.put("processExitedMs", exitedMs);
      r.put("baselineJvmStartMsMedian", median(baselineMs));
      r.put("status", lastStatus);
      r.put("environment", aws.description());
      r.put("awsHostNames", aws.named());
      r.put("outcomeEventsPublished", outcomeEvents);
      r.put("describeClusterCalls", aws.describeClusterCalls());
      r.put("expectedStatus", scenario.expected());
      r.put("jarBytes", jarBytes);
      r.put("jarMiB", Math.round(jarBytes / 1048576.0 * 100) / 100.0);
      if (scenario instanceof CostColdScenario cost) {
        r.put("pricingApiCallsToStub", cost.pricingCalls());
      }
      r.put("share", share.describe());
      if (!diagnosticOptions(0).isEmpty()) {
        r.put("diagnosticJvmOptions", String.join(" ", diagnosticOptions(0)));
      }
      r.put("targetMs", TARGET_MS);
      r.put("targetMiB", 25);
      boolean jarOk = jarBytes <= TARGET_JAR_BYTES;
      r.put("pass", allExpected && median <= TARGET_MS && jarOk);
      return r;
    }
  }

  /**
   * Extra JVM options for the child, to see where a cold start's time goes (e.g. {@code
   * -Xlog:class+load:file=/tmp/cold-%n.log:uptime,tid}, {@code %n} = the run's number): from {@code
   * GPUFLEET_BENCH_COLD_JVM_DIAG}, split at whitespace. Never the template's options, and the JSON
   * line says they were used.
   */
  static List<String> diagnosticOptions(int run) {
    String diag = System.getenv().getOrDefault("GPUFLEET_BENCH_COLD_JVM_DIAG", "").strip();
    return diag.isEmpty() ? List.of() : List.of(diag.replace("%n", "" + run).split("\\s+"));
  }

  /**
   * The child's stdout and when its answer came: LocalInvoker prints the handler's answer as its
   * last line (log lines may come before it) as soon as handleRequest returns, then closes the
   * handler's clients and exits.
   */
  record Answered(String stdout, String answer, long answeredAtNanos) {
    static Answered read(InputStream in, LongSupplier nanoClock) throws IOException {
      var all = new StringBuilder();
      String answer = "";
      long at = nanoClock.getAsLong();
      try (var lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        for (String line; (line = lines.readLine()) != null; ) {
          all.append(line).append('\n');
          if (!line.isBlank()) {
            answer = line.strip();
            at = nanoClock.getAsLong();
          }
        }
      }
      return new Answered(all.toString(), answer, at);
    }
  }

  private static long jvmAlone(Confinement share) throws Exception {
    long b0 = System.nanoTime();
    new ProcessBuilder(share.java(List.of("-version")))
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .start()
        .waitFor();
    return (System.nanoTime() - b0) / 1_000_000;
  }

  static long median(List<Long> values) {
    var sorted = new ArrayList<>(values);
    sorted.sort(Long::compare);
    return sorted.get(sorted.size() / 2);
  }

  private Scenario scenario(String function, ColdAws aws) throws IOException {
    return switch (function) {
      case "interruption-drain" -> drain(aws);
      case "disruption-schedule" -> schedule(aws);
      case "capacity-preflight" -> preflight(aws);
      case "cost-report" -> CostColdScenario.start(err, aws);
      default -> throw new ConfigException("bench cold --function " + function + ": unknown");
    };
  }

  /**
   * A function whose only AWS calls are DescribeCluster and the outcome event: anything else it
   * calls reaches the stub ({@code AWS_ENDPOINT_URL}), which answers what it does not serve with an
   * error, never real AWS.
   */
  private static Map<String, String> alone(ColdAws aws, SimCluster cluster) {
    var env = aws.environment(cluster);
    aws.override(env, "AWS_ENDPOINT_URL", aws.endpoint());
    return env;
  }

  static String first(JsonNode answer, String field) {
    JsonNode o = answer.isArray() ? answer.path(0) : answer;
    return o.path(field).asText(null);
  }

  /** A Spot warning for a 10-pod node of the simulated cluster. */
  private static Scenario drain(ColdAws aws) {
    var time = SimTime.realTime();
    var cluster = SimCluster.startHttps(time);
    return new Scenario() {
      @Override
      public Map<String, String> prepare(int n, Path event) throws IOException {
        String instance = DrainBench.instanceId(900 + n);
        DrainBench.seedNode(cluster, "cold-" + n, instance, 10);
        Files.writeString(event, SyntheticEvents.spotJson("cold-" + n, instance, time.now()));
        return alone(aws, cluster);
      }

      @Override
      public String status(JsonNode answer) {
        return first(answer, "status");
      }

      @Override
      public String expected() {
        return "DRAINED";
      }

      @Override
      public void close() {
        cluster.close();
      }
    };
  }

  /**
   * The night tick of events/ with the example policy of deploy/policy against the demo NodePools
   * and workloads, on a fresh cluster each run. The function evaluates the wall clock, and the demo
   * is seeded in the business-hours state, so the policy is given today and tomorrow as holidays
   * (off-hours all day): every run, at any hour, scales down and rewrites budgets, and publishes
   * its outcome event (the bus hears only of changes). A run that writes nothing is not the
   * expected status.
   */
  private static Scenario schedule(ColdAws aws) throws IOException {
    Path policy = ProjectHome.path().resolve("deploy/policy/disruption-schedule.example.yaml");
    Path tick = ProjectHome.path().resolve("events/schedule-tick-night.json");
    if (!Files.isRegularFile(policy) || !Files.isRegularFile(tick)) {
      throw new ConfigException("bench cold: needs " + policy + " and " + tick);
    }
    String payload = Files.readString(tick);
    String offHours = offHoursToday(Files.readString(policy), java.time.Instant.now());
    var clusters = new ArrayList<SimCluster>();
    return new Scenario() {
      @Override
      public Map<String, String> prepare(int n, Path event) throws IOException {
        var cluster = SimCluster.startHttps(SimTime.realTime());
        clusters.add(cluster);
        DemoWorkloads.populate(cluster);
        Files.writeString(event, payload);
        var env = alone(aws, cluster);
        env.putAll(aws.ssmPolicy("/gpufleet/disruption-schedule", offHours));
        return env;
      }

      @Override
      public String status(JsonNode answer) {
        String status = first(answer, "status");
        return answer.path("writes").asInt(0) > 0 ? status : status + " (0 writes)";
      }

      @Override
      public String expected() {
        return "RECONCILED";
      }

      @Override
      public void close() {
        clusters.forEach(SimCluster::close);
      }
    };
  }

  /**
   * {@code policy} (a schedule policy's YAML) with the day of {@code now} and the next one, in the
   * policy's {@code timeZone}, added to its {@code holidays}: its default window all day.
   */
  static String offHoursToday(String policy, java.time.Instant now) {
    var zone = java.util.regex.Pattern.compile("(?m)^timeZone:\\s*(\\S+)").matcher(policy);
    var holidays = java.util.regex.Pattern.compile("(?m)^holidays:\\s*\\[").matcher(policy);
    if (!zone.find() || !holidays.find()) {
      throw new ConfigException(
          "bench cold: the schedule policy has no timeZone or holidays: [...]");
    }
    var today = now.atZone(java.time.ZoneId.of(zone.group(1))).toLocalDate();
    String rest = policy.substring(holidays.end());
    return policy.substring(0, holidays.end())
        + today
        + ", "
        + today.plusDays(1)
        + (rest.stripLeading().startsWith("]") ? "" : ", ")
        + rest;
  }

  /** The daily plan of events/ against the simulated account (AWS stub, seeded regions). */
  private static Scenario preflight(ColdAws aws) throws IOException {
    Path file = ProjectHome.path().resolve("events/preflight-daily-schedule.json");
    if (!Files.isRegularFile(file)) {
      throw new ConfigException("bench cold: needs " + file);
    }
    JsonNode payload = Json.MAPPER.readTree(Files.readAllBytes(file));
    var regions = new ArrayList<String>();
    payload.path("plan").path("regions").forEach(r -> regions.add(r.asText()));
    // every service of every region on one stub (it reads the region of each call's signature),
    // behind host names each region's endpoint its own connection
    var stub = aws.stub(5);
    if (aws.named()) {
      aws.hosts().fallback(aws.hosts().address(5));
    }
    new SimCapacityAccount(stub)
        .install()
        .seedDemo(regions.isEmpty() ? Regions.DEFAULT_ENABLED : regions);
    var pricing = new PricingStub().withDecoys();
    stub.on(PricingStub.OPERATION, pricing::answer);
    return new Scenario() {
      @Override
      public Map<String, String> prepare(int n, Path event) throws IOException {
        var copy = (com.fasterxml.jackson.databind.node.ObjectNode) payload.deepCopy();
        copy.put("executionId", "cold-" + n + "-" + System.nanoTime());
        Files.write(event, Json.MAPPER.writeValueAsBytes(copy));
        var env = aws.environment();
        aws.override(env, "AWS_ENDPOINT_URL", stub.endpoint());
        return env;
      }

      @Override
      public String status(JsonNode answer) {
        String s = first(answer, "status");
        return s != null ? s : first(answer, "verdict");
      }

      @Override
      public String expected() {
        return "REPORTED";
      }

      @Override
      public void close() {
        stub.close();
      }
    };
  }

  static Path lambdaJar(String function) throws IOException {
    Path dir = ProjectHome.path().resolve("functions/" + function + "/target");
    try (var s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().endsWith("-lambda.jar"))
          .findFirst()
          .orElseThrow(
              () ->
                  new ConfigException(
                      "bench cold: no Lambda jar in "
                          + dir
                          + "; build with ./gpufleet (it builds on first use)"));
    } catch (java.nio.file.NoSuchFileException e) {
      throw new ConfigException(
          "bench cold: " + dir + " does not exist; build with ./gpufleet first");
    }
  }
}
