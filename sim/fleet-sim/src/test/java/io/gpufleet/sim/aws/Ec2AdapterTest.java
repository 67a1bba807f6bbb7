package io.gpufleet.sim.aws;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.testkit.aws.AwsEmulatorExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.Instance;
import software.amazon.awssdk.services.ec2.model.InstanceType;
import software.amazon.awssdk.services.ec2.model.ResourceType;
import software.amazon.awssdk.services.ec2.model.Tag;

/** The EC2 SDK client built by AwsClients, as the cost and preflight functions will use it. */
class Ec2AdapterTest {
  @RegisterExtension static final AwsEmulatorExtension AWS = new AwsEmulatorExtension();

  private static Ec2Client ec2;

  @BeforeAll
  static void createClient() {
    ec2 = AWS.emulator().clients().build(Ec2Client.builder());
  }

  @AfterAll
  static void closeClient() {
    ec2.close();
  }

  private static String anyImage() {
    var images = ec2.describeImages(r -> r.owners("amazon")).images();
    assertThat(images).as("the emulator ships public AMIs").isNotEmpty();
    return images.get(0).imageId();
  }

  private static String runInstance(String image, String cluster, InstanceType type) {
    return ec2.runInstances(
            r ->
                r.imageId(image)
                    .instanceType(type)
                    .minCount(1)
                    .maxCount(1)
                    .tagSpecifications(
                        t ->
                            t.resourceType(ResourceType.INSTANCE)
                                .tags(
                                    Tag.builder().key("eks:cluster-name").value(cluster).build())))
        .instances()
        .get(0)
        .instanceId();
  }

  @Test
  void shouldFindTheClusterInstancesByTag() {
    // Given one instance of cluster prod and one of cluster staging
    var image = anyImage();
    var prod = runInstance(image, "prod", InstanceType.P4_D_24_XLARGE);
    runInstance(image, "staging", InstanceType.G5_XLARGE);

    // When
    var found =
        ec2
            .describeInstancesPaginator(
                r ->
                    r.filters(Filter.builder().name("tag:eks:cluster-name").values("prod").build()))
            .reservations()
            .stream()
            .flatMap(reservation -> reservation.instances().stream())
            .toList();

    // Then
    assertThat(found).extracting(Instance::instanceId).containsExactly(prod);
    assertThat(found.get(0).instanceType()).isEqualTo(InstanceType.P4_D_24_XLARGE);
    assertThat(found.get(0).tags())
        .contains(Tag.builder().key("eks:cluster-name").value("prod").build());
  }
}
