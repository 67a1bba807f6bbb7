package io.gpufleet.sim.aws;

import io.gpufleet.core.time.TimeSource;
import io.gpufleet.sim.RequestTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A simulated EC2 Auto Scaling lifecycle-hook service behind an {@link AwsStubServer}, answering
 * the query protocol the way the real service does: {@code RecordLifecycleActionHeartbeat} and
 * {@code CompleteLifecycleAction} find the pending action by token or instance id (the token wins
 * when both are given), refuse anything else with {@code ValidationError} "No active Lifecycle
 * Action found", accept only {@code CONTINUE}/{@code ABANDON}, and a heartbeat restarts the hook's
 * timeout. Every completion and heartbeat is recorded. A call acts at the instant its client
 * stamped on it ({@link RequestTime}), else at the time source's now.
 */
public final class SimAutoScaling {
  public static final String NS = "http://autoscaling.amazonaws.com/doc/2011-01-01/";

  /** One instance waiting in Pending:Wait or Terminating:Wait. */
  public static final class Pending {
    public final String group;
    public final String hook;
    public final String instanceId;
    public final String token;
    public final String transition;
    public final Duration heartbeatTimeout;
    public final String defaultResult;
    volatile Instant timeoutAt;

    Pending(
        String group,
        String hook,
        String instanceId,
        String token,
        String transition,
        Duration heartbeatTimeout,
        String defaultResult,
        Instant now) {
      this.group = group;
      this.hook = hook;
      this.instanceId = instanceId;
      this.token = token;
      this.transition = transition;
      this.heartbeatTimeout = heartbeatTimeout;
      this.defaultResult = defaultResult;
      this.timeoutAt = now.plus(heartbeatTimeout);
    }

    public Instant timeoutAt() {
      return timeoutAt;
    }
  }

  /** A completed action: by whom (call or timeout), with what result. */
  public record Completion(
      String group, String hook, String instanceId, String result, boolean byTimeout, Instant at) {}

  /** A heartbeat that was accepted. */
  public record Heartbeat(String group, String hook, String instanceId, Instant at) {}

  private final TimeSource time;
  private final Map<String, Pending> pending = new LinkedHashMap<>();
  private final List<Completion> completions = new CopyOnWriteArrayList<>();
  private final List<Heartbeat> heartbeats = new CopyOnWriteArrayList<>();

  public SimAutoScaling(AwsStubServer stub, TimeSource time) {
    this.time = time;
    stub.on("CompleteLifecycleAction", this::complete);
    stub.on("RecordLifecycleActionHeartbeat", this::heartbeat);
  }

  /** An instance enters the hook's wait state; returns its lifecycle action token. */
  public String hold(
      String group,
      String hook,
      String instanceId,
      String transition,
      Duration heartbeatTimeout,
      String defaultResult) {
    return hold(
        group,
        hook,
        instanceId,
        transition,
        heartbeatTimeout,
        defaultResult,
        UUID.randomUUID().toString());
  }

  /** As above, with the token a sample event carries. */
  public synchronized String hold(
      String group,
      String hook,
      String instanceId,
      String transition,
      Duration heartbeatTimeout,
      String defaultResult,
      String token) {
    pending.put(
        token,
        new Pending(
            group,
            hook,
            instanceId,
            token,
            transition,
            heartbeatTimeout,
            defaultResult,
            time.now()));
    return token;
  }

  public synchronized Optional<Pending> pending(String instanceId) {
    expire(time.now());
    return pending.values().stream().filter(p -> p.instanceId.equals(instanceId)).findFirst();
  }

  public synchronized List<Completion> completions() {
    expire(time.now());
    return List.copyOf(completions);
  }

  public List<Heartbeat> heartbeats() {
    return List.copyOf(heartbeats);
  }

  /** Actions whose hook timed out are completed with their default result. */
  private void expire(Instant now) {
    for (var it = pending.values().iterator(); it.hasNext(); ) {
      var p = it.next();
      if (!now.isBefore(p.timeoutAt)) {
        it.remove();
        completions.add(
            new Completion(p.group, p.hook, p.instanceId, p.defaultResult, true, p.timeoutAt));
      }
    }
  }

  private synchronized Optional<Pending> find(AwsStubServer.Call call, Instant now) {
    expire(now);
    var group = call.param("AutoScalingGroupName").orElse("");
    var hook = call.param("LifecycleHookName").orElse("");
    var token = call.param("LifecycleActionToken");
    var instance = call.param("InstanceId");
    return pending.values().stream()
        .filter(p -> p.group.equals(group) && p.hook.equals(hook))
        .filter(
            p ->
                token.isPresent()
                    ? p.token.equals(token.get())
                    : instance.isPresent() && p.instanceId.equals(instance.get()))
        .findFirst();
  }

  private AwsStubServer.Reply complete(AwsStubServer.Call call) {
    var result = call.param("LifecycleActionResult").orElse("");
    if (!result.equals("CONTINUE") && !result.equals("ABANDON")) {
      return error(
          "ValidationError",
          "Valid values for LifecycleActionResult are CONTINUE and ABANDON, got " + result);
    }
    Instant now = RequestTime.of(call.headers(), time);
    synchronized (this) {
      var p = find(call, now);
      if (p.isEmpty()) {
        return notFound(call);
      }
      pending.remove(p.get().token);
      completions.add(
          new Completion(p.get().group, p.get().hook, p.get().instanceId, result, false, now));
    }
    return ok("CompleteLifecycleAction");
  }

  private AwsStubServer.Reply heartbeat(AwsStubServer.Call call) {
    Instant now = RequestTime.of(call.headers(), time);
    synchronized (this) {
      var p = find(call, now);
      if (p.isEmpty()) {
        return notFound(call);
      }
      p.get().timeoutAt = now.plus(p.get().heartbeatTimeout);
      heartbeats.add(new Heartbeat(p.get().group, p.get().hook, p.get().instanceId, now));
    }
    return ok("RecordLifecycleActionHeartbeat");
  }

  private static AwsStubServer.Reply notFound(AwsStubServer.Call call) {
    return error(
        "ValidationError",
        "No active Lifecycle Action found with instance ID "
            + call.param("InstanceId").orElse("(none)")
            + " or token "
            + call.param("LifecycleActionToken").orElse("(none)"));
  }

  private static AwsStubServer.Reply ok(String operation) {
    return AwsStubServer.Reply.xml(
        "<"
            + operation
            + "Response xmlns=\""
            + NS
            + "\"><"
            + operation
            + "Result/><ResponseMetadata><RequestId>"
            + UUID.randomUUID()
            + "</RequestId></ResponseMetadata></"
            + operation
            + "Response>");
  }

  /** The query protocol's error document (ErrorResponse/Error), as Auto Scaling answers. */
  public static AwsStubServer.Reply error(String code, String message) {
    return new AwsStubServer.Reply(
        400,
        "text/xml",
        "<ErrorResponse xmlns=\""
            + NS
            + "\"><Error><Type>Sender</Type><Code>"
            + code
            + "</Code><Message>"
            + message.replace("&", "&amp;").replace("<", "&lt;")
            + "</Message></Error><RequestId>"
            + UUID.randomUUID()
            + "</RequestId></ErrorResponse>");
  }

  /**
   * Holds the action a lifecycle event (EventBridge envelope) describes, with its token, so the
   * event can be replayed against this service. Returns false for any other payload.
   */
  public boolean holdFor(com.fasterxml.jackson.databind.JsonNode event, Duration heartbeatTimeout) {
    var d = event.path("detail");
    if (!"aws.autoscaling".equals(event.path("source").asText())
        || !d.hasNonNull("LifecycleActionToken")) {
      return false;
    }
    hold(
        d.path("AutoScalingGroupName").asText(),
        d.path("LifecycleHookName").asText(),
        d.path("EC2InstanceId").asText(),
        d.path("LifecycleTransition").asText(),
        heartbeatTimeout,
        "ABANDON",
        d.path("LifecycleActionToken").asText());
    return true;
  }

  /** For tests: how many actions are still waiting. */
  public synchronized List<Pending> allPending() {
    expire(time.now());
    return new ArrayList<>(pending.values());
  }
}
