package io.gpufleet.drain.aws;

import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.aws.AwsRetry;
import io.gpufleet.core.aws.Ec2Query;
import io.gpufleet.core.aws.Ec2QueryException;
import io.gpufleet.core.aws.Ec2Xml;
import io.gpufleet.drain.CapacityReservationPort;
import io.gpufleet.drain.InstanceLookupPort;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.regions.Region;

/**
 * EC2 DescribeInstances filtered by {@code capacity-reservation-id}, or for one instance id (its
 * private DNS name and cluster tags, to find its node without listing every node), through the
 * shared EC2 Query client ({@link Ec2Query}: no EC2 SDK in the jar). Read-only; IAM: {@code
 * ec2:DescribeInstances} (no resource-level scoping exists for it).
 */
public final class Ec2InstancesAdapter implements CapacityReservationPort, InstanceLookupPort {
  static final List<String> LIVE_STATES =
      List.of("pending", "running", "stopping", "shutting-down");
  static final int PAGE_SIZE = 1000;
  static final int MAX_PAGES = 50;
  static final String INSTANCES = "reservationSet/item/instancesSet/item";

  private final Ec2Query ec2;

  public Ec2InstancesAdapter(Ec2Query ec2) {
    this.ec2 = ec2;
  }

  /** A client of its own for {@code endpoint} (the simulated EC2 of the burst bench). */
  public Ec2InstancesAdapter(
      URI endpoint, Region region, AwsCredentialsProvider credentials, SdkHttpClient http) {
    this(new Ec2Query(endpoint, region, credentials, http, AwsRetry.standard()));
  }

  /** The region, credentials and endpoint of {@code aws} (see {@link Ec2Query#from}). */
  public static Ec2InstancesAdapter from(AwsClients aws) {
    return new Ec2InstancesAdapter(Ec2Query.from(aws));
  }

  @Override
  public List<String> runningInstances(String capacityReservationId) {
    if (capacityReservationId == null || !capacityReservationId.matches("cr-[0-9a-f]{8,17}")) {
      throw new IllegalArgumentException(
          "not a capacity reservation id: "
              + (capacityReservationId == null
                  ? "null"
                  : capacityReservationId.substring(
                      0, Math.min(40, capacityReservationId.length()))));
    }
    var ids = new ArrayList<String>();
    var request =
        Ec2Query.Params.of("DescribeInstances")
            .filter("capacity-reservation-id", List.of(capacityReservationId))
            .filter("instance-state-name", LIVE_STATES)
            .put("MaxResults", PAGE_SIZE);
    try {
      ec2.paginate(
          request,
          MAX_PAGES,
          page -> page.all(INSTANCES + "/instanceId").forEach(i -> ids.add(i.text())));
    } catch (Ec2QueryException e) {
      throw new ReservationLookupException(
          "DescribeInstances for " + capacityReservationId + " failed: " + e.getMessage(), e);
    }
    return ids;
  }

  @Override
  public Optional<Instance> describe(String instanceId) {
    if (instanceId == null || !instanceId.matches("i-[0-9a-f]{8,17}")) {
      return Optional.empty();
    }
    Ec2Xml answer;
    try {
      answer =
          ec2.call(Ec2Query.Params.of("DescribeInstances").list("InstanceId", List.of(instanceId)));
    } catch (Ec2QueryException e) {
      throw new ReservationLookupException(
          "DescribeInstances for " + instanceId + " failed: " + e.getMessage(), e);
    }
    return instance(answer, instanceId);
  }

  /** The instance's privateDnsName and tags (key → value) from a DescribeInstances answer. */
  static Optional<Instance> instance(Ec2Xml answer, String instanceId) {
    for (Ec2Xml i : answer.all(INSTANCES)) {
      if (instanceId.equals(i.text("instanceId"))) {
        var tags = new LinkedHashMap<String, String>();
        for (Ec2Xml t : i.items("tagSet")) {
          String key = t.text("key");
          if (key != null) {
            String value = t.text("value");
            tags.put(key, value == null ? "" : value);
          }
        }
        String dns = i.text("privateDnsName");
        return Optional.of(new Instance(dns == null ? "" : dns, Instance.clustersOf(tags)));
      }
    }
    return Optional.empty();
  }
}
