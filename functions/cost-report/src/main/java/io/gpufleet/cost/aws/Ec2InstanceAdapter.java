package io.gpufleet.cost.aws;

import io.gpufleet.core.aws.Ec2Query;
import io.gpufleet.core.aws.Ec2Xml;
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
import java.util.Map;
import java.util.regex.Pattern;

/**
 * DescribeInstances by the cluster tag (paged) and by instance id (batches of 200), through the EC2
 * Query client; reads only the fields the report uses.
 */
public final class Ec2InstanceAdapter implements InstancePort {
  private static final Pattern TRANSITION_TIME =
      Pattern.compile("\\((\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}) GMT\\)");
  private static final DateTimeFormatter TRANSITION =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
  static final String INSTANCES = "reservationSet/item/instancesSet/item";
  private final Ec2Query ec2;

  public Ec2InstanceAdapter(Ec2Query ec2) {
    this.ec2 = ec2;
  }

  @Override
  public List<Ec2Instance> clusterInstances(String cluster, Collection<String> alsoIds) {
    var out = new LinkedHashMap<String, Ec2Instance>();
    describe(
        Ec2Query.Params.of("DescribeInstances")
            .filter("tag-key", List.of("kubernetes.io/cluster/" + cluster))
            .put("MaxResults", 1000),
        out);
    var missing = alsoIds.stream().filter(id -> !out.containsKey(id)).distinct().toList();
    for (int from = 0; from < missing.size(); from += 200) {
      var batch = missing.subList(from, Math.min(missing.size(), from + 200));
      describe(Ec2Query.Params.of("DescribeInstances").filter("instance-id", batch), out);
    }
    return new ArrayList<>(out.values());
  }

  private void describe(Ec2Query.Params request, Map<String, Ec2Instance> out) {
    ec2.paginate(
        request, page -> page.all(INSTANCES).forEach(i -> out.put(i.text("instanceId"), map(i))));
  }

  /** One {@code instancesSet/item} of a DescribeInstances answer. */
  static Ec2Instance map(Ec2Xml i) {
    String lifecycleRaw = i.text("instanceLifecycle");
    Lifecycle lifecycle;
    if ("spot".equals(lifecycleRaw)) {
      lifecycle = Lifecycle.SPOT;
    } else if ("capacity-block".equals(lifecycleRaw)) {
      lifecycle = Lifecycle.CAPACITY_BLOCK;
    } else if (i.text("capacityReservationId") != null
        && !i.text("capacityReservationId").isEmpty()) {
      lifecycle = Lifecycle.RESERVED;
    } else {
      lifecycle = Lifecycle.ON_DEMAND;
    }
    String state = i.text("instanceState/name");
    return new Ec2Instance(
        i.text("instanceId"),
        i.text("instanceType"),
        i.text("placement/availabilityZone"),
        lifecycle,
        i.instant("launchTime"),
        state == null || state.isEmpty() ? "unknown" : state,
        stoppedAt(i.text("reason")),
        tag(i, "karpenter.sh/nodepool"),
        tag(i, "eks:nodegroup-name"));
  }

  /** "User initiated (2026-11-29 10:00:00 GMT)" and the like → that instant. */
  static Instant stoppedAt(String reason) {
    if (reason == null) {
      return null;
    }
    var m = TRANSITION_TIME.matcher(reason);
    return m.find() ? LocalDateTime.parse(m.group(1), TRANSITION).toInstant(ZoneOffset.UTC) : null;
  }

  private static String tag(Ec2Xml instance, String key) {
    for (Ec2Xml t : instance.items("tagSet")) {
      if (key.equals(t.text("key"))) {
        return t.text("value");
      }
    }
    return null;
  }
}
