package io.gpufleet.deploy;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.drain.DrainService;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.model.DryRunReport;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Instance;
import software.amazon.awssdk.services.ec2.model.InstanceLifecycleType;
import software.amazon.awssdk.services.ec2.model.Tag;
import software.amazon.awssdk.services.fis.FisClient;
import software.amazon.awssdk.services.fis.model.ExperimentStatus;

/**
 * {@code gpufleet rehearse}: one Spot GPU node of the cluster gets a real Spot interruption from
 * the stack's FIS experiment template, and the chain that follows is timed against the two-minute
 * deadline. Every refusal comes before any write; the only writes are the instance's rehearsal tag
 * (removed at the end) and the experiment.
 */
public final class Rehearsal {
  /**
   * The tag the stack's experiment template targets (template.yaml RehearsalExperimentTemplate).
   */
  public static final String TAG = "gpufleet:rehearse";

  /** The stack output naming the experiment template (template.yaml Outputs). */
  public static final String TEMPLATE_OUTPUT = "RehearsalExperimentTemplateId";

  /** A Spot interruption warning comes two minutes before the instance goes. */
  static final Duration DEADLINE = Duration.ofMinutes(2);

  static final Duration POLL = Duration.ofSeconds(2);
  static final Duration FOLLOW_LIMIT = Duration.ofMinutes(15);

  /** Experiment states FIS counts as under way (a second rehearsal is refused meanwhile). */
  static final Set<ExperimentStatus> ACTIVE =
      Set.of(ExperimentStatus.INITIATING, ExperimentStatus.PENDING, ExperimentStatus.RUNNING);

  /** What the rehearsal talks to. */
  public record Clients(Ec2Client ec2, FisClient fis, KubernetesClient kube, DrainService drain) {}

  /**
   * Where the chain runs: how time passes between two looks at it (a real account: the wall clock;
   * the simulated one: its clock and what is due by then), and the drain's outcome when the drain
   * runs in this process (the simulation).
   */
  public interface World {
    Instant now();

    void pass(Duration d) throws InterruptedException;

    default Optional<DrainOutcome> drainOutcome() {
      return Optional.empty();
    }
  }

  /** A rehearsal this command will not start: said before any write (exit 2). */
  public static final class Refused extends RuntimeException {
    Refused(String message) {
      super(message);
    }
  }

  public record Target(String node, String instanceId, DryRunReport dryRun) {}

  public record Step(Instant at, String what, String detail) {}

  public record Result(
      String stack,
      String cluster,
      String node,
      String instanceId,
      String experimentId,
      Instant warning,
      Instant deadline,
      List<Step> timeline,
      boolean passed,
      String verdict) {}

  private final Clients clients;
  private final World world;
  private final String stack;
  private final String cluster;

  public Rehearsal(Clients clients, World world, String stack, String cluster) {
    this.clients = clients;
    this.world = world;
    this.stack = stack;
    this.cluster = cluster;
  }

  /** The node to rehearse on ({@code wanted}, or the Spot GPU node least likely to block). */
  public Target choose(Optional<String> wanted) {
    if (wanted.isPresent()) {
      Node node = clients.kube().nodes().withName(wanted.get()).get();
      if (node == null) {
        throw new Refused(
            "node " + wanted.get() + " is not a node of cluster " + cluster + " (no such node)");
      }
      String problem = problem(node);
      if (problem != null) {
        throw new Refused(problem);
      }
      return target(node);
    }
    var candidates = new ArrayList<Target>();
    var refusals = new ArrayList<String>();
    for (Node n : clients.kube().nodes().list().getItems()) {
      if (gpus(n) == 0 || !spotLabel(n)) {
        continue;
      }
      String problem = problem(n);
      if (problem == null) {
        candidates.add(target(n));
      } else {
        refusals.add(problem);
      }
    }
    return candidates.stream()
        .min(
            Comparator.comparingInt((Target t) -> t.dryRun().wouldWaitOrBlock().size())
                .thenComparing(Target::node))
        .orElseThrow(
            () ->
                new Refused(
                    "no Spot GPU node of cluster "
                        + cluster
                        + " can be rehearsed on"
                        + (refusals.isEmpty() ? "" : ": " + String.join("; ", refusals))));
  }

  private Target target(Node n) {
    String id = instanceId(n);
    return new Target(n.getMetadata().getName(), id, clients.drain().dryRun(id));
  }

  /** Why {@code n} cannot be rehearsed on, or null. */
  private String problem(Node n) {
    String name = n.getMetadata().getName();
    String id = instanceId(n);
    if (id == null) {
      return "node " + name + " has no EC2 instance in its providerID";
    }
    if (gpus(n) == 0) {
      return "node " + name + " has no GPUs (nvidia.com/gpu)";
    }
    Instance i =
        clients.ec2().describeInstances(r -> r.instanceIds(id)).reservations().stream()
            .flatMap(r -> r.instances().stream())
            .findFirst()
            .orElse(null);
    if (i == null) {
      return "node " + name + "'s instance " + id + " does not exist";
    }
    String owner = clusterOf(i);
    if (!cluster.equals(owner)) {
      return "node "
          + name
          + " (instance "
          + id
          + ") is outside cluster "
          + cluster
          + (owner == null
              ? ": its instance has no eks:cluster-name tag"
              : ": it belongs to " + owner)
          + " (the stack's FIS role may interrupt only instances tagged for its cluster)";
    }
    if (i.instanceLifecycle() != InstanceLifecycleType.SPOT) {
      return "node "
          + name
          + " (instance "
          + id
          + ") is On-Demand, not Spot: only a Spot instance can get a Spot interruption";
    }
    if (!"running".equals(i.state().nameAsString())) {
      return "node " + name + "'s instance " + id + " is " + i.state().nameAsString();
    }
    return null;
  }

  /** Refuses while an experiment of the template is under way. */
  public void refuseIfRunning(String templateId) {
    for (var page :
        clients.fis().listExperimentsPaginator(r -> r.experimentTemplateId(templateId))) {
      for (var e : page.experiments()) {
        if (templateId.equals(e.experimentTemplateId()) && ACTIVE.contains(e.state().status())) {
          throw new Refused(
              "a rehearsal is already under way: experiment "
                  + e.id()
                  + " of template "
                  + templateId
                  + " is "
                  + e.state().statusAsString()
                  + "; wait for it to end or stop it (aws fis stop-experiment --id "
                  + e.id()
                  + ")");
        }
      }
    }
  }

  /** Tags, starts, follows and untags; the experiment is stopped if the JVM is interrupted. */
  public Result run(Target t, String templateId) throws InterruptedException {
    var steps = new ArrayList<Step>();
    String experiment = null;
    Thread stopper = null;
    try {
      experiment = start(t, templateId, steps);
      String id = experiment;
      stopper = new Thread(() -> stop(id, t.instanceId()), "rehearse-stop");
      Runtime.getRuntime().addShutdownHook(stopper);
      return follow(t, experiment, steps);
    } finally {
      if (stopper != null) {
        try {
          Runtime.getRuntime().removeShutdownHook(stopper);
        } catch (IllegalStateException shuttingDown) {
          // the hook is running: it stops and untags
        }
      }
      untag(t.instanceId());
    }
  }

  /** Tags the instance and starts the experiment (untagging if it does not start). */
  public String start(Target t, String templateId, List<Step> steps) {
    clients.ec2().createTags(r -> r.resources(t.instanceId()).tags(tag()));
    steps.add(new Step(world.now(), "instance tagged", t.instanceId() + " " + TAG + "=" + stack));
    boolean started = false;
    try {
      String id =
          clients
              .fis()
              .startExperiment(
                  r ->
                      r.experimentTemplateId(templateId)
                          .clientToken(UUID.randomUUID().toString())
                          .tags(Map.of("gpufleet:stack", stack, "gpufleet:node", t.node())))
              .experiment()
              .id();
      steps.add(new Step(world.now(), "experiment started", id));
      started = true;
      return id;
    } finally {
      if (!started) {
        untag(t.instanceId());
      }
    }
  }

  private Tag tag() {
    return Tag.builder().key(TAG).value(stack).build();
  }

  private void untag(String instanceId) {
    clients.ec2().deleteTags(r -> r.resources(instanceId).tags(tag()));
  }

  /** Stops the experiment (the user interrupted) and removes the tag. */
  public void stop(String experiment, String instanceId) {
    try {
      var state = clients.fis().getExperiment(r -> r.id(experiment)).experiment().state();
      if (ACTIVE.contains(state.status())) {
        clients.fis().stopExperiment(r -> r.id(experiment));
      }
    } finally {
      untag(instanceId);
    }
  }

  private Result follow(Target t, String experiment, List<Step> steps) throws InterruptedException {
    var seen = new LinkedHashMap<String, Step>();
    var before = new java.util.HashSet<String>();
    clients.kube().nodes().list().getItems().forEach(n -> before.add(n.getMetadata().getName()));
    Instant warning = null;
    String ended = null;
    Instant limit = world.now().plus(FOLLOW_LIMIT);
    while (world.now().isBefore(limit)) {
      world.pass(POLL);
      Instant now = world.now();
      var exp = clients.fis().getExperiment(r -> r.id(experiment)).experiment();
      for (var a : exp.actions().values()) {
        if (warning == null && a.startTime() != null) {
          warning = a.startTime();
          seen.putIfAbsent(
              "warning", new Step(warning, "warning sent", a.actionId() + " to " + t.instanceId()));
        }
      }
      if (!ACTIVE.contains(exp.state().status())
          && exp.state().status() != ExperimentStatus.COMPLETED) {
        ended = "experiment " + exp.state().statusAsString() + ": " + exp.state().reason();
        break;
      }
      var outcome = world.drainOutcome();
      if (outcome.isPresent() && !seen.containsKey("outcome")) {
        fromOutcome(outcome.get(), seen);
      } else if (outcome.isEmpty()) {
        observeCluster(t, now, steps.get(0).at(), seen);
      }
      var state =
          clients
              .ec2()
              .describeInstances(r -> r.instanceIds(t.instanceId()))
              .reservations()
              .stream()
              .flatMap(r -> r.instances().stream())
              .map(i -> i.state().nameAsString())
              .findFirst()
              .orElse("terminated");
      if (Set.of("shutting-down", "terminated").contains(state)) {
        seen.putIfAbsent("terminated", new Step(now, "instance terminated", state));
      }
      for (Node n : clients.kube().nodes().list().getItems()) {
        if (!before.contains(n.getMetadata().getName()) && ready(n)) {
          seen.putIfAbsent(
              "replacement", new Step(now, "replacement node Ready", n.getMetadata().getName()));
        }
      }
      if (seen.containsKey("terminated") && seen.containsKey("replacement")) {
        break;
      }
    }
    steps.addAll(seen.values());
    steps.sort(Comparator.comparing(Step::at));
    return verdict(t, experiment, warning, steps, seen, ended);
  }

  /** The drain's own record (in this process): cordoned, evictions issued, all gone. */
  private static void fromOutcome(DrainOutcome o, Map<String, Step> seen) {
    Instant at = o.receivedAt();
    var timings = o.timings();
    if (timings != null && timings.cordonedMs() != null) {
      seen.put(
          "cordoned", new Step(at.plusMillis(timings.cordonedMs()), "node cordoned", o.node()));
    }
    if (timings != null && timings.evictionsIssuedMs() != null) {
      int n = o.podsEvicted() == null ? 0 : o.podsEvicted().size();
      seen.put(
          "evictions",
          new Step(at.plusMillis(timings.evictionsIssuedMs()), "evictions issued", n + " pods"));
    }
    if (timings != null && timings.allGoneMs() != null) {
      seen.put("gone", new Step(at.plusMillis(timings.allGoneMs()), "all pods gone", o.node()));
    }
    Instant done = at;
    for (var s : seen.values()) {
      done = s.at().isAfter(done) ? s.at() : done;
    }
    seen.put(
        "outcome", new Step(done, "drain outcome event received", o.status() + ": " + o.message()));
  }

  /** A real drain runs in Lambda: what it did, as seen in the cluster. */
  private void observeCluster(Target t, Instant now, Instant since, Map<String, Step> seen) {
    var kube = clients.kube();
    Node node = kube.nodes().withName(t.node()).get();
    if (node != null
        && node.getSpec() != null
        && Boolean.TRUE.equals(node.getSpec().getUnschedulable())) {
      seen.putIfAbsent("cordoned", new Step(now, "node cordoned", t.node()));
    }
    int terminating = 0;
    int gone = 0;
    for (String ref : t.dryRun().wouldEvict()) {
      String[] p = ref.split("/", 2);
      var pod = p.length == 2 ? kube.pods().inNamespace(p[0]).withName(p[1]).get() : null;
      if (pod == null || !t.node().equals(pod.getSpec().getNodeName())) {
        gone++;
      } else if (pod.getMetadata().getDeletionTimestamp() != null) {
        terminating++;
      }
    }
    int want = t.dryRun().wouldEvict().size();
    if (want > 0 && terminating + gone == want) {
      seen.putIfAbsent("evictions", new Step(now, "evictions issued", want + " pods"));
    }
    if (gone == want && seen.containsKey("cordoned")) {
      seen.putIfAbsent("gone", new Step(now, "all pods gone", t.node()));
    }
    kube.v1().events().inAnyNamespace().list().getItems().stream()
        .filter(
            e -> e.getInvolvedObject() != null && t.node().equals(e.getInvolvedObject().getName()))
        .filter(e -> e.getReason() != null && e.getReason().startsWith("GpuFleet"))
        .filter(e -> eventTime(e).map(at -> !at.isBefore(since)).orElse(false))
        .findFirst()
        .ifPresent(
            e ->
                seen.putIfAbsent(
                    "outcome",
                    new Step(
                        eventTime(e).orElse(now),
                        "drain outcome event received",
                        e.getReason() + ": " + e.getMessage())));
  }

  /** When a Kubernetes Event happened (events.k8s.io eventTime, else its last timestamp). */
  static Optional<Instant> eventTime(io.fabric8.kubernetes.api.model.Event e) {
    for (String t :
        new String[] {
          e.getEventTime() == null ? null : e.getEventTime().getTime(),
          e.getLastTimestamp(),
          e.getFirstTimestamp()
        }) {
      if (t != null && !t.isBlank()) {
        try {
          return Optional.of(java.time.OffsetDateTime.parse(t).toInstant());
        } catch (java.time.format.DateTimeParseException unparsed) {
          // try the next field
        }
      }
    }
    return Optional.empty();
  }

  private Result verdict(
      Target t,
      String experiment,
      Instant warning,
      List<Step> steps,
      Map<String, Step> seen,
      String ended) {
    Instant deadline = warning == null ? null : warning.plus(DEADLINE);
    String verdict;
    boolean passed = false;
    if (ended != null) {
      verdict = "FAIL: " + ended;
    } else if (warning == null) {
      verdict = "FAIL: no Spot interruption warning was sent within " + FOLLOW_LIMIT;
    } else if (!seen.containsKey("outcome")) {
      verdict = "FAIL: no drain outcome: the drain did not act on the warning";
    } else if (!drained(seen.get("outcome").detail())) {
      verdict = "FAIL: the drain did not evict every pod (" + seen.get("outcome").detail() + ")";
    } else if (!seen.containsKey("gone")) {
      verdict = "FAIL: the node's pods were not all gone (" + seen.get("outcome").detail() + ")";
    } else {
      Duration took = Duration.between(warning, seen.get("gone").at());
      passed = !seen.get("gone").at().isAfter(deadline);
      verdict =
          (passed ? "PASS" : "FAIL")
              + ": all pods gone "
              + took.toMillis() / 1000.0
              + " s after the warning, "
              + (passed ? "within" : "past")
              + " the "
              + DEADLINE.toSeconds()
              + " s deadline"
              + (seen.containsKey("replacement") ? "" : " (no replacement node became Ready)");
    }
    return new Result(
        stack,
        cluster,
        t.node(),
        t.instanceId(),
        experiment,
        warning,
        deadline,
        List.copyOf(steps),
        passed,
        verdict);
  }

  /** The outcome says every pod went: DRAINED in process, GpuFleetDrained as a node Event. */
  private static boolean drained(String outcome) {
    return outcome.startsWith(DrainOutcome.Status.DRAINED + ":")
        || outcome.startsWith(
            "GpuFleet"
                + io.gpufleet.core.outcome.OutcomeReporter.pascal(
                    DrainOutcome.Status.DRAINED.name())
                + ":");
  }

  static String instanceId(Node n) {
    String p = n.getSpec() == null ? null : n.getSpec().getProviderID();
    return p == null || !p.contains("/i-") ? null : p.substring(p.lastIndexOf('/') + 1);
  }

  static int gpus(Node n) {
    var q =
        n.getStatus() == null || n.getStatus().getAllocatable() == null
            ? null
            : n.getStatus().getAllocatable().get("nvidia.com/gpu");
    return q == null ? 0 : q.getNumericalAmount().intValue();
  }

  private static boolean spotLabel(Node n) {
    var l =
        n.getMetadata().getLabels() == null
            ? Map.<String, String>of()
            : n.getMetadata().getLabels();
    return "spot".equals(l.get("karpenter.sh/capacity-type"))
        || "SPOT".equals(l.get("eks.amazonaws.com/capacityType"));
  }

  static boolean ready(Node n) {
    return n.getStatus() != null
        && n.getStatus().getConditions() != null
        && n.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static String clusterOf(Instance i) {
    for (Tag tag : i.tags()) {
      if (tag.key().equals("eks:cluster-name")) {
        return tag.value();
      }
    }
    for (Tag tag : i.tags()) {
      if (tag.key().startsWith("kubernetes.io/cluster/") && "owned".equals(tag.value())) {
        return tag.key().substring("kubernetes.io/cluster/".length());
      }
    }
    return null;
  }
}
