package io.gpufleet.core.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.testkit.aws.contract.AwsQueryModelInspector;
import io.gpufleet.testkit.aws.contract.BotocoreModels;
import io.gpufleet.testkit.aws.contract.ContractViolations;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;

/**
 * The query-protocol client's form and the model check every request goes through (the client
 * against moto and a stub: fleet-sim's SnsNotifierAdapterTest).
 */
class AwsQueryTest {
  static final String TOPIC = "arn:aws:sns:us-east-1:123456789012:gpufleet-alerts";
  final BotocoreModels models = BotocoreModels.shared();
  // nothing listens on port 9 of the loopback: a request that got past the checks would fail with
  // TransportError
  final AwsQuery sns =
      new AwsQuery(
          AwsQuery.SNS,
          ServiceWire.of(
              URI.create("http://127.0.0.1:9/"),
              Region.US_EAST_1,
              AwsQuery.SNS.signingName(),
              StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDTEST", "secret")),
              UrlConnectionHttpClient.create(),
              AwsRetry.standard()));

  List<String> problems(AwsQuery.Service service, Map<String, String> form) {
    return AwsQueryModelInspector.validate(models, service, form).stream()
        .map(v -> v.path() + " " + v.problem())
        .toList();
  }

  @Test
  void shouldEncodeTheFormInWireOrderWithQueryListNumbering() {
    var params =
        AwsQuery.Params.of(AwsQuery.SNS, "AddPermission")
            .put("TopicArn", TOPIC)
            .put("Label", "ops & billing")
            .list("AWSAccountId", List.of("111122223333", "444455556666"))
            .list("ActionName", List.of("Publish"));

    assertThat(params.form())
        .isEqualTo(
            "Action=AddPermission&Version=2010-03-31&TopicArn=arn%3Aaws%3Asns%3Aus-east-1%3A"
                + "123456789012%3Agpufleet-alerts&Label=ops+%26+billing"
                + "&AWSAccountId.member.1=111122223333&AWSAccountId.member.2=444455556666"
                + "&ActionName.member.1=Publish");
    assertThat(problems(AwsQuery.SNS, params.asMap())).isEmpty();
  }

  @Test
  void shouldAcceptThePublishTheNotifierSends() {
    var form =
        AwsQuery.Params.of(AwsQuery.SNS, "Publish")
            .put("TopicArn", TOPIC)
            .put("Subject", "Cost report prod-gpu")
            .put("Message", "see the report")
            .asMap();

    assertThat(problems(AwsQuery.SNS, form)).isEmpty();
  }

  @Test
  void shouldNameEachWayAFormBreaksTheModel() {
    var form = new LinkedHashMap<String, String>();
    form.put("Action", "AddPermission");
    form.put("Version", "2012-11-05");
    form.put("TopicArn", TOPIC);
    form.put("AWSAccountId.1", "111122223333");
    form.put("ActionName.member.2", "Publish");
    form.put("Colour", "blue");

    assertThat(problems(AwsQuery.SNS, form))
        .anySatisfy(p -> assertThat(p).isEqualTo("Version is not 2010-03-31"))
        .anySatisfy(
            p ->
                assertThat(p)
                    .isEqualTo(
                        "AWSAccountId.1=111122223333 a list's items are sent as 'member.N', not"
                            + " '1'"))
        .anySatisfy(p -> assertThat(p).isEqualTo("ActionName list index 1 is missing"))
        .anySatisfy(
            p ->
                assertThat(p)
                    .isEqualTo("Colour=blue no member of AddPermissionInput is sent as 'Colour'"));
  }

  @Test
  void shouldRefuseAPublishWithoutItsRequiredMessage() {
    var form = AwsQuery.Params.of(AwsQuery.SNS, "Publish").put("TopicArn", TOPIC).asMap();

    assertThat(problems(AwsQuery.SNS, form))
        .containsExactly("PublishInput.Message is required but missing");
  }

  @Test
  void shouldRefuseAMapItDoesNotDecodeRatherThanPassIt() {
    var form =
        AwsQuery.Params.of(AwsQuery.SNS, "Publish")
            .put("Message", "m")
            .put("MessageAttributes.entry.1.Name", "team")
            .asMap();

    assertThat(problems(AwsQuery.SNS, form))
        .singleElement()
        .asString()
        .contains("a map (MessageAttributeMap) is not decoded");
  }

  @Test
  void shouldJudgeTheClientsServiceMetadataAgainstTheModel() {
    var wrong = new AwsQuery.Service("Simple Notification", "sns", "snsv2", "2010-03-31");
    var form = AwsQuery.Params.of(wrong, "Publish").put("Message", "m").asMap();

    assertThat(problems(wrong, form))
        .anySatisfy(p -> assertThat(p).startsWith("metadata.signingName is 'sns'"))
        .anySatisfy(p -> assertThat(p).startsWith("metadata.serviceId is 'SNS'"));
    assertThat(AwsQuery.SNS.envId()).isEqualTo("SNS");
  }

  @Test
  void shouldRefuseAnInvalidRequestBeforeItIsSent() {

    assertThatThrownBy(() -> sns.call(sns.params("Publish").put("TopicArn", TOPIC)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("request refused by the SNS model (botocore)")
        .hasMessageContaining("PublishInput.Message is required but missing");
    assertThat(ContractViolations.drain()).isNotEmpty();
  }

  @Test
  void shouldRefuseParamsOfAnotherService() {
    var other = new AwsQuery.Service("SQS", "sqs", "sqs", "2012-11-05");

    assertThatThrownBy(() -> sns.call(AwsQuery.Params.of(other, "ListQueues")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("ListQueues of SQS sent to");
  }
}
