package io.gpufleet.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.gpufleet.core.time.VirtualTime;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The HTTPS API server negotiates as kube-apiserver does: ALPN offers HTTP/2, so the functions'
 * client multiplexes concurrent requests over one connection (one handshake), and a client that
 * only speaks HTTP/1.1 is still served.
 */
class SimClusterTlsTest {
  final SimCluster cluster =
      SimCluster.startHttps(new VirtualTime(Instant.parse("2026-12-01T00:00:00Z")));

  @AfterEach
  void stop() {
    cluster.close();
  }

  private SSLContext trustingTheClusterCa() throws Exception {
    var cert =
        CertificateFactory.getInstance("X.509")
            .generateCertificate(
                new ByteArrayInputStream(
                    Base64.getDecoder().decode(cluster.caData().orElseThrow())));
    var store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    store.setCertificateEntry("cluster-ca", cert);
    var trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(store);
    var context = SSLContext.getInstance("TLS");
    context.init(null, trust.getTrustManagers(), null);
    return context;
  }

  private HttpResponse<String> get(HttpClient.Version version) throws Exception {
    try (var http =
        HttpClient.newBuilder().sslContext(trustingTheClusterCa()).version(version).build()) {
      return http.send(
          HttpRequest.newBuilder(URI.create(cluster.url() + "api/v1/nodes")).build(),
          HttpResponse.BodyHandlers.ofString());
    }
  }

  @Test
  void shouldNegotiateHttp2AndStillServeHttp11() throws Exception {
    assertThat(cluster.url()).startsWith("https://localhost:");

    var h2 = get(HttpClient.Version.HTTP_2);
    var h1 = get(HttpClient.Version.HTTP_1_1);

    assertThat(h2.statusCode()).isEqualTo(200);
    assertThat(h2.version()).isEqualTo(HttpClient.Version.HTTP_2);
    assertThat(h1.statusCode()).isEqualTo(200);
    assertThat(h1.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
    assertThat(h2.body()).contains("\"kind\":\"NodeList\"");
    assertThat(cluster.tlsConnections()).isEqualTo(2);
  }

  @Test
  void shouldCarryTheFunctionsConcurrentRequestsOnOneConnection() throws Exception {
    cluster.create(
        SimCluster.gpuNode(
            "gpu-a", "i-0aaaaaaaaaaaaaaa1", "us-east-1a", "g6e.xlarge", "spot", "p", null, 1));
    for (int i = 0; i < 16; i++) {
      cluster.create(
          SimCluster.runningPod(
              "apps", "web-" + i, "gpu-a", "StatefulSet", "web", Map.of("app", "web"), 30, 0));
    }
    try (var client = cluster.newClient();
        var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      assertThat(client.nodes().withName("gpu-a").get()).isNotNull();
      var gets = new ArrayList<Future<Pod>>();
      for (int i = 0; i < 16; i++) {
        String name = "web-" + i;
        gets.add(
            pool.submit(
                (Callable<Pod>) () -> client.pods().inNamespace("apps").withName(name).get()));
      }
      for (var get : gets) {
        assertThat(get.get()).isNotNull();
      }
    }
    // sixteen concurrent requests over HTTP/1.1 would have opened up to sixteen connections
    assertThat(cluster.tlsConnections()).isEqualTo(1);
  }
}
