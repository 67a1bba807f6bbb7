package io.gpufleet.cost.aws;

import io.gpufleet.cost.InstancePort;
import io.gpufleet.cost.model.Ec2Instance;
import io.gpufleet.cost.model.Lifecycle;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.regex.Pattern;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.Instance;
import software.amazon.awssdk.services.ec2.model.Tag;

/** DescribeInstances by the cluster tag (paged) and by instance id (batches of 200). */
public final class Ec2InstanceAdapter implements InstancePort {
  private static final Pattern TRANSITION_TIME =
      Pattern.compile("\\((\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}) GMT\\)");
  private static final DateTimeFormatter TRANSITION =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
  private final Ec2Client ec2;

  public Ec2InstanceAdapter(Ec2Client ec2) {
    this.ec2 = ec2;
  }

  @Override
  public List<Ec2Instance> clusterInstances(String cluster, Collection<String> alsoIds) {
    var out = new LinkedHashMap<String, Ec2Instance>();
    ec2.describeInstancesPaginator(
            r ->
                r.filters(
                        Filter.builder()
                            .name("tag-key")
                            .values("kubernetes.io/cluster/" + cluster)
                            .build())
                    .maxResults(1000))
        .reservations()
        .forEach(res -> res.instances().forEach(i -> out.put(i.instanceId(), map(i))));
    var missing = alsoIds.stream().filter(id -> !out.containsKey(id)).distinct().toList();
    for (int from = 0; from < missing.size(); from += 200) {
      var batch = missing.subList(from, Math.min(missing.size(), from + 200));
      ec2.describeInstancesPaginator(
              r -> r.filters(Filter.builder().name("instance-id").values(batch).build()))
          .reservations()
          .forEach(res -> res.instances().forEach(i -> out.put(i.instanceId(), map(i))));
    }
    return new ArrayList<>(out.values());
  }

  static Ec2Instance map(Instance i) {
    String lifecycleRaw = i.instanceLifecycleAsString();
    Lifecycle lifecycle;
    if ("spot".equals(lifecycleRaw)) {
      lifecycle = Lifecycle.SPOT;
    } else if ("capacity-block".equals(lifecycleRaw)) {
      lifecycle = Lifecycle.CAPACITY_BLOCK;
    } else if (i.capacityReservationId() != null) {
      lifecycle = Lifecycle.RESERVED;
    } else {
      lifecycle = Lifecycle.ON_DEMAND;
    }
    String state = i.state() == null ? "unknown" : i.state().nameAsString();
    return new Ec2Instance(
        i.instanceId(),
        i.instanceTypeAsString(),
        i.placement() == null ? null : i.placement().availabilityZone(),
        lifecycle,
        i.launchTime(),
        state,
        stoppedAt(i.stateTransitionReason()),
        tag(i.tags(), "karpenter.sh/nodepool"),
        tag(i.tags(), "eks:nodegroup-name"));
  }

  /** "User initiated (2026-11-29 10:00:00 GMT)" and the like → that instant. */
  static Instant stoppedAt(String reason) {
    if (reason == null) {
      return null;
    }
    var m = TRANSITION_TIME.matcher(reason);
    return m.find() ? LocalDateTime.parse(m.group(1), TRANSITION).toInstant(ZoneOffset.UTC) : null;
  }

  private static String tag(List<Tag> tags, String key) {
    for (Tag t : tags) {
      if (key.equals(t.key())) {
        return t.value();
      }
    }
    return null;
  }
}
