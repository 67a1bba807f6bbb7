package io.gpufleet.drain.aws;

import io.gpufleet.drain.ReplacementPort;
import java.util.LinkedHashMap;
import java.util.Optional;
import software.amazon.awssdk.services.autoscaling.AutoScalingClient;
import software.amazon.awssdk.services.autoscaling.model.AutoScalingException;
import software.amazon.awssdk.services.autoscaling.model.AutoScalingGroup;
import software.amazon.awssdk.services.autoscaling.model.Tag;

/** {@link ReplacementPort} over the SDK's Auto Scaling client (query protocol). */
public final class AutoScalingReplacementAdapter implements ReplacementPort {
  static final String GROUP_TYPE = "auto-scaling-group";
  private final java.util.function.Supplier<AutoScalingClient> clients;

  public AutoScalingReplacementAdapter(AutoScalingClient client) {
    this(() -> client);
  }

  /** Over a client built when first needed (SnapStart: no client in the snapshot). */
  public AutoScalingReplacementAdapter(java.util.function.Supplier<AutoScalingClient> clients) {
    this.clients = clients;
  }

  @Override
  public Optional<Group> groupOf(String instanceId) {
    var found =
        clients
            .get()
            .describeAutoScalingInstances(r -> r.instanceIds(instanceId))
            .autoScalingInstances();
    return found.isEmpty() ? Optional.empty() : group(found.get(0).autoScalingGroupName());
  }

  @Override
  public Optional<Group> group(String name) {
    return clients
        .get()
        .describeAutoScalingGroups(r -> r.autoScalingGroupNames(name))
        .autoScalingGroups()
        .stream()
        .findFirst()
        .map(AutoScalingReplacementAdapter::toGroup);
  }

  static Group toGroup(AutoScalingGroup g) {
    var tags = new LinkedHashMap<String, String>();
    g.tags().forEach(t -> tags.put(t.key(), t.value()));
    return new Group(
        g.autoScalingGroupName(),
        g.minSize(),
        g.maxSize(),
        g.desiredCapacity(),
        Boolean.TRUE.equals(g.capacityRebalance()),
        tags,
        g.instances().stream().map(i -> i.instanceId()).toList());
  }

  @Override
  public void setDesired(String group, int desired) throws Refused {
    refusing(
        () ->
            clients
                .get()
                .setDesiredCapacity(
                    r ->
                        r.autoScalingGroupName(group)
                            .desiredCapacity(desired)
                            .honorCooldown(false)));
  }

  @Override
  public void terminateDecrementing(String instanceId) throws Refused {
    refusing(
        () ->
            clients
                .get()
                .terminateInstanceInAutoScalingGroup(
                    r -> r.instanceId(instanceId).shouldDecrementDesiredCapacity(true)));
  }

  @Override
  public void tag(String group, String key, String value) {
    clients.get().createOrUpdateTags(r -> r.tags(tag(group, key).toBuilder().value(value).build()));
  }

  @Override
  public void untag(String group, String key) {
    clients.get().deleteTags(r -> r.tags(tag(group, key)));
  }

  private static Tag tag(String group, String key) {
    return Tag.builder()
        .resourceId(group)
        .resourceType(GROUP_TYPE)
        .key(key)
        .propagateAtLaunch(false)
        .build();
  }

  private static void refusing(Runnable call) throws Refused {
    try {
      call.run();
    } catch (AutoScalingException e) {
      var d = e.awsErrorDetails();
      String code = d == null || d.errorCode() == null ? "HTTP " + e.statusCode() : d.errorCode();
      String message = d == null || d.errorMessage() == null ? e.getMessage() : d.errorMessage();
      if ("ValidationError".equals(code) || (e.statusCode() >= 400 && e.statusCode() < 500)) {
        throw new Refused(code + ": " + message);
      }
      throw e;
    }
  }
}
