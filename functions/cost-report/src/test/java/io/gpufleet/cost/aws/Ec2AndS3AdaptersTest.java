package io.gpufleet.cost.aws;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.aws.Ec2Query;
import io.gpufleet.core.aws.Ec2Xml;
import io.gpufleet.core.s3.S3BlobStoreAdapter;
import io.gpufleet.core.s3.S3Rest;
import io.gpufleet.cost.model.Lifecycle;
import io.gpufleet.testkit.aws.AwsEmulatorExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.InstanceType;
import software.amazon.awssdk.services.ec2.model.ResourceType;
import software.amazon.awssdk.services.ec2.model.Tag;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The EC2 adapters (through the EC2 Query client, every request held to the EC2 model) and the S3
 * adapter (through S3Rest, held to the S3 model) against the AWS emulator (moto); instances are
 * launched with the SDK's EC2 client, the bucket made and checked with the SDK's S3 client.
 */
class Ec2AndS3AdaptersTest {
  @RegisterExtension static final AwsEmulatorExtension AWS = new AwsEmulatorExtension();
  private static Ec2Client ec2;
  private static Ec2Query query;
  private static S3Client s3;

  @BeforeAll
  static void clients() {
    ec2 = AWS.emulator().clients().build(Ec2Client.builder());
    query = Ec2Query.from(AWS.emulator().clients());
    s3 = AWS.emulator().clients().build(S3Client.builder().forcePathStyle(true));
  }

  @AfterAll
  static void close() {
    ec2.close();
    s3.close();
  }

  static String run(String cluster, InstanceType type, String nodePool) {
    String image = ec2.describeImages(r -> r.owners("amazon")).images().get(0).imageId();
    return ec2.runInstances(
            r ->
                r.imageId(image)
                    .instanceType(type)
                    .minCount(1)
                    .maxCount(1)
                    .placement(p -> p.availabilityZone("us-east-1b"))
                    .tagSpecifications(
                        t ->
                            t.resourceType(ResourceType.INSTANCE)
                                .tags(
                                    Tag.builder()
                                        .key("kubernetes.io/cluster/" + cluster)
                                        .value("owned")
                                        .build(),
                                    Tag.builder()
                                        .key("karpenter.sh/nodepool")
                                        .value(nodePool)
                                        .build())))
        .instances()
        .get(0)
        .instanceId();
  }

  @Test
  void shouldListTheClusterTaggedInstancesWithTypeZoneNodePoolAndLaunchTime() {
    String mine = run("cost-a", InstanceType.G6_E_12_XLARGE, "gpu-inference");
    run("cost-other", InstanceType.G5_XLARGE, "other");

    var found = new Ec2InstanceAdapter(query).clusterInstances("cost-a", List.of());

    assertThat(found)
        .singleElement()
        .satisfies(
            i -> {
              assertThat(i.instanceId()).isEqualTo(mine);
              assertThat(i.instanceType()).isEqualTo("g6e.12xlarge");
              assertThat(i.zone()).isEqualTo("us-east-1b");
              assertThat(i.nodePool()).isEqualTo("gpu-inference");
              assertThat(i.lifecycle()).isEqualTo(Lifecycle.ON_DEMAND);
              assertThat(i.launchTime()).isAfter(Instant.now().minus(Duration.ofHours(1)));
              assertThat(i.state()).isEqualTo("running");
            });
  }

  @Test
  void shouldAlsoDescribeInstancesNamedByNodesThatLackTheClusterTag() {
    String image = ec2.describeImages(r -> r.owners("amazon")).images().get(0).imageId();
    String untagged =
        ec2.runInstances(
                r ->
                    r.imageId(image).instanceType(InstanceType.G5_2_XLARGE).minCount(1).maxCount(1))
            .instances()
            .get(0)
            .instanceId();

    var found = new Ec2InstanceAdapter(query).clusterInstances("cost-b", List.of(untagged));

    assertThat(found).extracting(i -> i.instanceId()).containsExactly(untagged);
  }

  @Test
  void shouldReadTheStopTimeOfATerminatedInstance() {
    String id = run("cost-c", InstanceType.G5_XLARGE, "p");
    ec2.terminateInstances(r -> r.instanceIds(id));

    var found = new Ec2InstanceAdapter(query).clusterInstances("cost-c", List.of());

    assertThat(found)
        .singleElement()
        .satisfies(
            i -> {
              assertThat(i.gone()).isTrue();
              assertThat(i.state()).isEqualTo("terminated");
            });
  }

  /** One {@code instancesSet/item} as EC2 writes it (namespace, nested sets and all). */
  static Ec2Xml instance(String extra) {
    String xml =
        "<DescribeInstancesResponse xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\">"
            + "<requestId>r</requestId><reservationSet><item><reservationId>r-1</reservationId>"
            + "<instancesSet><item><instanceId>i-1</instanceId><instanceType>p5.48xlarge"
            + "</instanceType><instanceState><code>16</code><name>running</name></instanceState>"
            + "<placement><availabilityZone>us-east-1a</availabilityZone><tenancy>default"
            + "</tenancy></placement><launchTime>2026-11-29T10:00:00.000Z</launchTime>"
            + extra
            + "<tagSet><item><key>eks:nodegroup-name</key><value>ng</value></item></tagSet>"
            + "</item></instancesSet></item></reservationSet></DescribeInstancesResponse>";
    return Ec2Xml.parse(xml.getBytes(StandardCharsets.UTF_8), "DescribeInstances")
        .all(Ec2InstanceAdapter.INSTANCES)
        .get(0);
  }

  @Test
  void shouldTellSpotCapacityBlockReservedAndOnDemandApart() {
    assertThat(Ec2InstanceAdapter.map(instance("<instanceLifecycle>spot</instanceLifecycle>")))
        .satisfies(
            i -> {
              assertThat(i.lifecycle()).isEqualTo(Lifecycle.SPOT);
              assertThat(i.zone()).isEqualTo("us-east-1a");
              assertThat(i.launchTime()).isEqualTo(Instant.parse("2026-11-29T10:00:00Z"));
              assertThat(i.nodeGroup()).isEqualTo("ng");
              assertThat(i.state()).isEqualTo("running");
            });
    assertThat(
            Ec2InstanceAdapter.map(
                    instance("<instanceLifecycle>capacity-block</instanceLifecycle>"))
                .lifecycle())
        .isEqualTo(Lifecycle.CAPACITY_BLOCK);
    assertThat(
            Ec2InstanceAdapter.map(instance("<capacityReservationId>cr-1</capacityReservationId>"))
                .lifecycle())
        .isEqualTo(Lifecycle.RESERVED);
    assertThat(Ec2InstanceAdapter.map(instance("")).lifecycle()).isEqualTo(Lifecycle.ON_DEMAND);
  }

  @Test
  void shouldParseStateTransitionReasons() {
    assertThat(Ec2InstanceAdapter.stoppedAt("User initiated (2026-11-29 10:00:00 GMT)"))
        .isEqualTo(Instant.parse("2026-11-29T10:00:00Z"));
    assertThat(Ec2InstanceAdapter.stoppedAt("Service initiated (2026-11-29 23:59:59 GMT)"))
        .isEqualTo(Instant.parse("2026-11-29T23:59:59Z"));
    assertThat(Ec2InstanceAdapter.stoppedAt("")).isNull();
  }

  @Test
  void shouldReadSpotPriceHistoryPerZone() {
    var end = Instant.now();
    var points =
        new Ec2SpotPriceHistoryAdapter(query)
            .history(Set.of("g5.xlarge"), end.minus(Duration.ofDays(1)), end);

    assertThat(points).isNotEmpty();
    assertThat(points)
        .allSatisfy(
            p -> {
              assertThat(p.instanceType()).isEqualTo("g5.xlarge");
              assertThat(p.zone()).startsWith("us-east-1");
              assertThat(p.perHour().signum()).isPositive();
            });
  }

  @Test
  void shouldPutAndGetBlobsInS3() {
    s3.createBucket(r -> r.bucket("cost-reports"));
    var store = new S3BlobStoreAdapter(S3Rest.from(AWS.emulator().clients()), "cost-reports", "");

    store.put(
        "reports/c/w/cost.json", "{\"a\":1}".getBytes(StandardCharsets.UTF_8), "application/json");

    assertThat(store.get("reports/c/w/cost.json"))
        .hasValueSatisfying(
            b -> assertThat(new String(b, StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}"));
    assertThat(store.get("reports/c/w/missing.json")).isEmpty();
    assertThat(
            s3.headObject(r -> r.bucket("cost-reports").key("reports/c/w/cost.json")).contentType())
        .isEqualTo("application/json");
    assertThat(store.locate("k")).isEqualTo("s3://cost-reports/k");
  }
}
