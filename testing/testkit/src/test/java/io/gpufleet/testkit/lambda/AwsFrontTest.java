package io.gpufleet.testkit.lambda;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class AwsFrontTest {
  @Test
  void describeClusterAnswersTheSimulatedEndpointAndACertificateAsEksDoes() throws Exception {
    // Given an emulator that answers DescribeCluster the way moto does: a made-up endpoint and a
    // random string where EKS puts the base64 PEM of the cluster CA
    var upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    byte[] motoAnswer =
        ("{\"cluster\":{\"name\":\"gpu\",\"status\":\"ACTIVE\","
                + "\"endpoint\":\"https://ABC.gr7.us-east-1.eks.amazonaws.com\","
                + "\"certificateAuthority\":{\"data\":\"MIIzzzzRandomLettersNotACertificate\"}}}")
            .getBytes(StandardCharsets.UTF_8);
    upstream.createContext(
        "/",
        ex -> {
          ex.sendResponseHeaders(200, motoAnswer.length);
          ex.getResponseBody().write(motoAnswer);
          ex.close();
        });
    upstream.start();
    try (var front =
        AwsFront.start(
            URI.create("http://127.0.0.1:" + upstream.getAddress().getPort()),
            "http://127.0.0.1:6443")) {
      // When a signed DescribeCluster passes the front
      var answer =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(front.endpoint().resolve("/clusters/gpu"))
                      .header(
                          "Authorization",
                          "AWS4-HMAC-SHA256 Credential=AKIDTEST/20261202/us-east-1/eks/"
                              + "aws4_request, SignedHeaders=host, Signature=00")
                      .build(),
                  HttpResponse.BodyHandlers.ofByteArray());

      // Then the endpoint is the simulated server's and the CA data is a certificate
      var cluster = new ObjectMapper().readTree(answer.body()).path("cluster");
      assertThat(cluster.path("endpoint").asText()).isEqualTo("http://127.0.0.1:6443");
      byte[] pem =
          Base64.getDecoder().decode(cluster.path("certificateAuthority").path("data").asText());
      var certificate =
          (X509Certificate)
              CertificateFactory.getInstance("X.509")
                  .generateCertificate(new ByteArrayInputStream(pem));
      assertThat(certificate.getSubjectX500Principal().getName()).isEqualTo("CN=kubernetes");
      assertThat(front.calls()).extracting(AwsFront.Call::service).containsExactly("eks");
    } finally {
      upstream.stop(0);
    }
  }
}
