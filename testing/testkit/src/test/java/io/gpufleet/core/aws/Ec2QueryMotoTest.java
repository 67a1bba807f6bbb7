package io.gpufleet.core.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.testkit.aws.AwsEmulatorExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;

/**
 * The EC2 Query client against moto: EC2's real answer and error XML, pagination by nextToken,
 * every request held to the EC2 model by the testkit's inspector.
 */
class Ec2QueryMotoTest {
  @RegisterExtension
  static final AwsEmulatorExtension AWS = AwsEmulatorExtension.forServices("ec2");

  final List<Duration> sleeps = new CopyOnWriteArrayList<>();

  Ec2Query ec2() {
    var e = AWS.emulator();
    return new Ec2Query(
        e.endpoint(),
        e.region(),
        e.credentials(),
        UrlConnectionHttpClient.create(),
        AwsRetry.standard().withSleeper(sleeps::add));
  }

  @Test
  void shouldFollowNextTokenAcrossPagesOfRealEc2Answers() {
    var ec2 = ec2();
    String image =
        ec2.call(Ec2Query.Params.of("DescribeImages").list("Owner", List.of("amazon")))
            .items("imagesSet")
            .get(0)
            .text("imageId");
    // six reservations of one instance each: DescribeInstances pages count reservations
    var launched = new ArrayList<String>();
    for (int n = 0; n < 6; n++) {
      launched.add(
          ec2.call(
                  Ec2Query.Params.of("RunInstances")
                      .put("ImageId", image)
                      .put("InstanceType", "g5.xlarge")
                      .put("MinCount", 1)
                      .put("MaxCount", 1)
                      .put("TagSpecification.1.ResourceType", "instance")
                      .put("TagSpecification.1.Tag.1.Key", "kubernetes.io/cluster/paged")
                      .put("TagSpecification.1.Tag.1.Value", "owned"))
              .text("instancesSet/item/instanceId"));
    }
    var pages = new ArrayList<List<String>>();

    ec2.paginate(
        Ec2Query.Params.of("DescribeInstances")
            .filter("tag-key", List.of("kubernetes.io/cluster/paged"))
            .put("MaxResults", 5),
        page ->
            pages.add(
                page.all("reservationSet/item/instancesSet/item/instanceId").stream()
                    .map(Ec2Xml::text)
                    .toList()));

    assertThat(launched).hasSize(6).doesNotContainNull();
    assertThat(pages).hasSizeGreaterThan(1);
    assertThat(pages.stream().flatMap(List::stream)).containsExactlyInAnyOrderElementsOf(launched);
  }

  @Test
  void shouldCarryEc2sErrorCodeAndMessageAndNotRetryAClientError() {
    assertThatThrownBy(
            () ->
                ec2()
                    .call(
                        Ec2Query.Params.of("DescribeInstances")
                            .list("InstanceId", List.of("i-0aaaaaaaaaaaaaaaa"))))
        .isInstanceOfSatisfying(
            Ec2QueryException.class,
            e -> {
              assertThat(e.code()).isEqualTo("InvalidInstanceID.NotFound");
              assertThat(e.awsMessage()).contains("i-0aaaaaaaaaaaaaaaa");
              assertThat(e.status()).isEqualTo(400);
              assertThat(e.retryable()).isFalse();
            });
    assertThat(sleeps).isEmpty();
  }
}
