package io.gpufleet.sim.aws;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The simulated account (used by {@code gpufleet simulate}, where no model interceptor runs)
 * refuses what AWS refuses: raw query-protocol requests, bypassing the SDK.
 */
class SimCapacityAccountLimitsTest {
  static AwsStubServer stub;

  @BeforeAll
  static void start() {
    stub = AwsStubServer.start();
    new SimCapacityAccount(stub).install().region("us-east-1").spotScore(7);
  }

  @AfterAll
  static void stop() {
    stub.close();
  }

  static HttpResponse<String> scores(int regions) throws Exception {
    String body =
        "Action=GetSpotPlacementScores&Version=2016-11-15&TargetCapacity=4"
            + "&InstanceType.1=p5.48xlarge&InstanceType.2=p5e.48xlarge&InstanceType.3=p4d.24xlarge"
            + IntStream.rangeClosed(1, regions)
                .mapToObj(i -> "&RegionName." + i + "=" + (i == 1 ? "us-east-1" : "r" + i))
                .collect(Collectors.joining());
    var request =
        HttpRequest.newBuilder(URI.create(stub.endpoint() + "/"))
            .header("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void shouldRefuseMoreThanTenRegionNamesWithAnEc2ErrorDocument() throws Exception {
    var refused = scores(11);

    assertThat(refused.statusCode()).isEqualTo(400);
    assertThat(refused.body())
        .contains("<Response><Errors><Error><Code>InvalidParameterValue</Code>")
        .contains("11 regions given, at most 10");
  }

  @Test
  void shouldScoreTenRegionNames() throws Exception {
    var answered = scores(10);

    assertThat(answered.statusCode()).isEqualTo(200);
    assertThat(answered.body()).contains("<region>us-east-1</region><score>7</score>");
  }
}
