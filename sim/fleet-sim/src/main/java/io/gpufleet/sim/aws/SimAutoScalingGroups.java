package io.gpufleet.sim.aws;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Simulated Auto Scaling groups behind an {@link AwsStubServer}, answering as the service does:
 * {@code DescribeAutoScalingGroups} (by name), {@code DescribeAutoScalingInstances} (by instance
 * id), {@code SetDesiredCapacity} (a {@code ValidationError} outside MinSize..MaxSize, as AWS
 * answers), {@code TerminateInstanceInAutoScalingGroup} (with {@code
 * ShouldDecrementDesiredCapacity}: the desired capacity drops by one, else the group launches a
 * replacement), {@code CreateOrUpdateTags} and {@code DeleteTags} on groups. A raised desired
 * capacity launches instances at once (ids {@code i-0sim...}).
 */
public final class SimAutoScalingGroups {
  /** One group: its sizes, Capacity Rebalancing, tags and in-service instances. */
  public static final class Group {
    public final String name;
    public volatile int min;
    public volatile int max;
    public volatile int desired;
    public final boolean capacityRebalance;
    public final Map<String, String> tags = new LinkedHashMap<>();
    public final List<String> instances = new ArrayList<>();

    Group(String name, int min, int max, int desired, boolean capacityRebalance) {
      this.name = name;
      this.min = min;
      this.max = max;
      this.desired = desired;
      this.capacityRebalance = capacityRebalance;
    }
  }

  private final Map<String, Group> groups = new LinkedHashMap<>();
  private volatile java.util.function.BiConsumer<String, String> onLaunch = (group, id) -> {};
  private final List<String> setDesiredCalls = new ArrayList<>();
  private int launched;

  public SimAutoScalingGroups(AwsStubServer stub) {
    stub.on("DescribeAutoScalingGroups", this::describeGroups);
    stub.on("DescribeAutoScalingInstances", this::describeInstances);
    stub.on("SetDesiredCapacity", this::setDesired);
    stub.on("TerminateInstanceInAutoScalingGroup", this::terminate);
    stub.on("CreateOrUpdateTags", this::createTags);
    stub.on("DeleteTags", this::deleteTags);
  }

  /** A group of {@code instances} (desired = their number), tags as given. */
  public synchronized Group add(
      String name,
      int min,
      int max,
      boolean capacityRebalance,
      Map<String, String> tags,
      String... instances) {
    var g = new Group(name, min, max, instances.length, capacityRebalance);
    g.tags.putAll(tags);
    g.instances.addAll(List.of(instances));
    groups.put(name, g);
    return g;
  }

  /**
   * Called with (group, instance id) for every instance a group launches, e.g. to register its node
   * in a simulated cluster.
   */
  public void onLaunch(java.util.function.BiConsumer<String, String> listener) {
    this.onLaunch = listener;
  }

  private String launch(Group g) {
    String id = String.format("i-0sim%012d", ++launched);
    g.instances.add(id);
    onLaunch.accept(g.name, id);
    return id;
  }

  public synchronized Group group(String name) {
    return groups.get(name);
  }

  /** Every accepted SetDesiredCapacity, as "group=N". */
  public synchronized List<String> setDesiredCalls() {
    return List.copyOf(setDesiredCalls);
  }

  private synchronized AwsStubServer.Reply describeGroups(AwsStubServer.Call call) {
    var names = AwsStubServer.listParam(call, "AutoScalingGroupNames.member");
    var xml = new StringBuilder("<AutoScalingGroups>");
    for (Group g : groups.values()) {
      if (!names.isEmpty() && !names.contains(g.name)) {
        continue;
      }
      xml.append("<member><AutoScalingGroupName>")
          .append(g.name)
          .append("</AutoScalingGroupName><MinSize>")
          .append(g.min)
          .append("</MinSize><MaxSize>")
          .append(g.max)
          .append("</MaxSize><DesiredCapacity>")
          .append(g.desired)
          .append("</DesiredCapacity><CapacityRebalance>")
          .append(g.capacityRebalance)
          .append("</CapacityRebalance><Instances>");
      for (String i : g.instances) {
        xml.append("<member><InstanceId>")
            .append(i)
            .append("</InstanceId><LifecycleState>InService</LifecycleState></member>");
      }
      xml.append("</Instances><Tags>");
      g.tags.forEach(
          (k, v) ->
              xml.append("<member><Key>")
                  .append(k)
                  .append("</Key><Value>")
                  .append(v)
                  .append("</Value><ResourceId>")
                  .append(g.name)
                  .append("</ResourceId><ResourceType>auto-scaling-group</ResourceType>")
                  .append("<PropagateAtLaunch>false</PropagateAtLaunch></member>"));
      xml.append("</Tags></member>");
    }
    xml.append("</AutoScalingGroups>");
    return result("DescribeAutoScalingGroups", xml.toString());
  }

  private synchronized AwsStubServer.Reply describeInstances(AwsStubServer.Call call) {
    var ids = AwsStubServer.listParam(call, "InstanceIds.member");
    var xml = new StringBuilder("<AutoScalingInstances>");
    for (Group g : groups.values()) {
      for (String i : g.instances) {
        if (ids.contains(i)) {
          xml.append("<member><InstanceId>")
              .append(i)
              .append("</InstanceId><AutoScalingGroupName>")
              .append(g.name)
              .append("</AutoScalingGroupName><LifecycleState>InService</LifecycleState>")
              .append("<HealthStatus>HEALTHY</HealthStatus></member>");
        }
      }
    }
    xml.append("</AutoScalingInstances>");
    return result("DescribeAutoScalingInstances", xml.toString());
  }

  private synchronized AwsStubServer.Reply setDesired(AwsStubServer.Call call) {
    Group g = groups.get(call.param("AutoScalingGroupName").orElse(""));
    if (g == null) {
      return SimAutoScaling.error("ValidationError", "AutoScalingGroup name not found");
    }
    int wanted = Integer.parseInt(call.param("DesiredCapacity").orElse("-1"));
    if (wanted > g.max) {
      return SimAutoScaling.error(
          "ValidationError",
          "New SetDesiredCapacity value "
              + wanted
              + " is above max value "
              + g.max
              + " for the AutoScalingGroup.");
    }
    if (wanted < g.min) {
      return SimAutoScaling.error(
          "ValidationError",
          "New SetDesiredCapacity value "
              + wanted
              + " is below min value "
              + g.min
              + " for the AutoScalingGroup.");
    }
    g.desired = wanted;
    while (g.instances.size() < wanted) {
      launch(g);
    }
    setDesiredCalls.add(g.name + "=" + wanted);
    return result("SetDesiredCapacity", null);
  }

  private synchronized AwsStubServer.Reply terminate(AwsStubServer.Call call) {
    String id = call.param("InstanceId").orElse("");
    boolean decrement =
        Boolean.parseBoolean(call.param("ShouldDecrementDesiredCapacity").orElse("false"));
    for (Group g : groups.values()) {
      if (g.instances.remove(id)) {
        if (decrement) {
          if (g.desired - 1 < g.min) {
            g.instances.add(id);
            return SimAutoScaling.error(
                "ValidationError",
                "Currently, desiredSize equals minSize ("
                    + g.min
                    + "). Terminating instance without replacement will violate group's min size constraint.");
          }
          g.desired--;
        } else {
          launch(g);
        }
        return result(
            "TerminateInstanceInAutoScalingGroup",
            "<Activity><ActivityId>"
                + UUID.randomUUID()
                + "</ActivityId><AutoScalingGroupName>"
                + g.name
                + "</AutoScalingGroupName><Cause>terminated by request</Cause>"
                + "<StartTime>2026-12-02T00:00:00Z</StartTime><StatusCode>InProgress</StatusCode>"
                + "<Progress>0</Progress></Activity>");
      }
    }
    return SimAutoScaling.error(
        "ValidationError",
        "Instance Id not found - No managed instance found for instance ID: " + id);
  }

  private synchronized AwsStubServer.Reply createTags(AwsStubServer.Call call) {
    for (int i = 1; call.param("Tags.member." + i + ".Key").isPresent(); i++) {
      Group g = groups.get(call.param("Tags.member." + i + ".ResourceId").orElse(""));
      if (g == null) {
        return SimAutoScaling.error("ValidationError", "AutoScalingGroup name not found");
      }
      g.tags.put(
          call.param("Tags.member." + i + ".Key").get(),
          call.param("Tags.member." + i + ".Value").orElse(""));
    }
    return result("CreateOrUpdateTags", null);
  }

  private synchronized AwsStubServer.Reply deleteTags(AwsStubServer.Call call) {
    for (int i = 1; call.param("Tags.member." + i + ".Key").isPresent(); i++) {
      Group g = groups.get(call.param("Tags.member." + i + ".ResourceId").orElse(""));
      if (g != null) {
        g.tags.remove(call.param("Tags.member." + i + ".Key").get());
      }
    }
    return result("DeleteTags", null);
  }

  private static AwsStubServer.Reply result(String operation, String inner) {
    return AwsStubServer.Reply.xml(
        "<"
            + operation
            + "Response xmlns=\""
            + SimAutoScaling.NS
            + "\">"
            + (inner == null
                ? ""
                : "<" + operation + "Result>" + inner + "</" + operation + "Result>")
            + "<ResponseMetadata><RequestId>"
            + UUID.randomUUID()
            + "</RequestId></ResponseMetadata></"
            + operation
            + "Response>");
  }
}
