package io.gpufleet.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.aws.AwsJson;
import io.gpufleet.core.aws.AwsRetry;
import io.gpufleet.core.aws.ServiceWire;
import io.gpufleet.core.k8s.KubeClients;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimTime;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.Base64;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * bench cold's AWS side: the environment it hands a function is the deployed one (no KUBE_API_URL),
 * the function's own code finds the simulated API server through it and is let in with an EKS
 * token, and the outcome events it publishes are counted only when EventBridge would accept them.
 */
class ColdAwsTest {
  // behind endpoint overrides, as where the bench may not listen on port 443 (AwsHostsTest: names)
  private final ColdAws aws =
      ColdAws.startWithOverrides(java.nio.file.Path.of(System.getProperty("java.home")));
  private final SimCluster cluster = SimCluster.startHttps(SimTime.realTime());

  @AfterEach
  void stop() {
    cluster.close();
    aws.close();
  }

  private AwsClients clientsOf(String endpoint) {
    return new AwsClients(
        Region.US_EAST_1,
        StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDBENCH", "bench")),
        Optional.of(URI.create(endpoint)),
        aws.tls().benchHttpClient());
  }

  @Test
  void shouldLeadTheFunctionsOwnEksLookupToTheSimulatedApiServer() throws Exception {
    cluster.create(
        SimCluster.gpuNode(
            "n1", "i-0123456789abcdef0", "us-east-1a", "g5.xlarge", "spot", "gpu", null, 1));

    var env = aws.environment(cluster);

    assertThat(env)
        .doesNotContainKey("KUBE_API_URL")
        .containsEntry("CLUSTER_NAME", "bench")
        .containsEntry("OUTCOME_EVENT_BUS", "default")
        .containsKeys("AWS_ENDPOINT_URL_EKS", "AWS_ENDPOINT_URL_EVENTBRIDGE", "AWS_ACCESS_KEY_ID");
    try (var kube =
        KubeClients.forEks(
            clientsOf(env.get("AWS_ENDPOINT_URL_EKS")),
            env.get("CLUSTER_NAME"),
            Clock.systemUTC())) {
      assertThat(kube.getConfiguration().getOauthTokenProvider().getToken())
          .startsWith("k8s-aws-v1.");
      assertThat(kube.nodes().list().getItems())
          .extracting(n -> n.getMetadata().getName())
          .containsExactly("n1");
      var ca =
          (X509Certificate)
              CertificateFactory.getInstance("X.509")
                  .generateCertificate(
                      new ByteArrayInputStream(
                          Base64.getDecoder().decode(kube.getConfiguration().getCaCertData())));
      // the API server's own certificate, trusted as the cluster CA: the list above went over TLS
      assertThat(kube.getMasterUrl().getProtocol()).isEqualTo("https");
      assertThat(ca.getSubjectX500Principal().getName()).contains("CN=localhost");
    }
    assertThat(aws.describeClusterCalls()).isEqualTo(1);
  }

  @Test
  void shouldCountOnlyTheOutcomeEventsEventBridgeWouldAccept() {
    var env = aws.environment();
    var events =
        new AwsJson(
            AwsJson.EVENTBRIDGE,
            ServiceWire.of(
                URI.create(env.get("AWS_ENDPOINT_URL_EVENTBRIDGE")),
                Region.US_EAST_1,
                AwsJson.EVENTBRIDGE.signingName(),
                StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDBENCH", "bench")),
                aws.tls().benchHttpClient(),
                AwsRetry.standard()));
    var good = AwsJson.input();
    good.putArray("Entries")
        .addObject()
        .put("EventBusName", env.get("OUTCOME_EVENT_BUS"))
        .put("Source", "gpufleet.drain")
        .put("DetailType", "Drain Outcome")
        .put("Detail", "{\"status\":\"DRAINED\"}");
    var noDetail = AwsJson.input();
    noDetail.putArray("Entries").addObject().put("Source", "gpufleet.drain").put("DetailType", "x");
    var otherBus = good.deepCopy();
    ((com.fasterxml.jackson.databind.node.ObjectNode) otherBus.path("Entries").get(0))
        .put("EventBusName", "missing");

    assertThat(events.call("PutEvents", good).path("FailedEntryCount").asInt()).isZero();
    assertThat(events.call("PutEvents", noDetail).path("Entries").get(0).path("ErrorCode").asText())
        .isEqualTo("InvalidArgument");
    assertThat(events.call("PutEvents", otherBus).path("Entries").get(0).path("ErrorCode").asText())
        .isEqualTo("NotFoundException");
    assertThat(aws.outcomeEvents()).isEqualTo(1);
  }

  @Test
  void shouldServeAwsOverHttpsThatOnlyTheBenchTrustStoreLetsIn() throws Exception {
    var env = aws.environment();
    URI bus = URI.create(env.get("AWS_ENDPOINT_URL_EVENTBRIDGE"));
    assertThat(bus.getScheme()).isEqualTo("https");
    var plain = java.net.http.HttpClient.newHttpClient();
    var request = java.net.http.HttpRequest.newBuilder(bus).build();

    assertThatThrownBy(
            () -> plain.send(request, java.net.http.HttpResponse.BodyHandlers.discarding()))
        .isInstanceOf(javax.net.ssl.SSLHandshakeException.class);
    assertThat(aws.tls().functionJvmOptions())
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o).startsWith("-Djavax.net.ssl.trustStore=");
              var store = java.security.KeyStore.getInstance("PKCS12");
              try (var in =
                  java.nio.file.Files.newInputStream(
                      java.nio.file.Path.of(o.substring(o.indexOf('=') + 1)))) {
                store.load(in, null);
              }
              var cacerts = java.security.KeyStore.getInstance("PKCS12");
              try (var in =
                  java.nio.file.Files.newInputStream(
                      java.nio.file.Path.of(
                          System.getProperty("java.home"), "lib", "security", "cacerts"))) {
                cacerts.load(in, null);
              }
              // the JDK's roots plus the stubs' certificate, nothing dropped
              assertThat(store.size()).isEqualTo(cacerts.size() + 1);
              assertThat(store.getCertificate("gpufleet-bench")).isNotNull();
            });
  }
}
