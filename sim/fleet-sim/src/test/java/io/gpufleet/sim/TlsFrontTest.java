package io.gpufleet.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.ByteArrayInputStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The HTTPS front serves the streams of one HTTP/2 connection concurrently, as kube-apiserver does:
 * a request the dispatcher is still working on does not hold up the next one on the connection.
 */
class TlsFrontTest {

  @Test
  @Timeout(60) // the old front, serving one stream at a time, did not finish at all
  void shouldServeTheStreamsOfOneConnectionConcurrently() throws Exception {
    // request A is held in the dispatcher until request B, sent on the same connection once A is
    // there, has reached the dispatcher too: served one after another, A would wait in vain
    var aArrived = new CountDownLatch(1);
    var bArrived = new CountDownLatch(1);
    var aSawB = new AtomicBoolean();
    var dispatcher =
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) {
            if (request.getPath().equals("/a")) {
              aArrived.countDown();
              try {
                aSawB.set(bArrived.await(5, TimeUnit.SECONDS));
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            } else if (request.getPath().equals("/b")) {
              bArrived.countDown();
            }
            return new MockResponse()
                .setResponseCode(200)
                .setBody(request.getPath())
                .setBodyDelay(Duration.ofMillis(request.getPath().equals("/b") ? 20 : 0));
          }
        };
    try (var front = TlsFront.start(InetAddress.getLoopbackAddress(), dispatcher);
        var http =
            HttpClient.newBuilder()
                .sslContext(trusting(front.caData()))
                .version(HttpClient.Version.HTTP_2)
                .build()) {
      var a = http.sendAsync(request(front, "a"), HttpResponse.BodyHandlers.ofString());
      assertThat(aArrived.await(10, TimeUnit.SECONDS)).isTrue();
      var b = http.send(request(front, "b"), HttpResponse.BodyHandlers.ofString());

      assertThat(b.statusCode()).isEqualTo(200);
      assertThat(b.body()).isEqualTo("/b");
      assertThat(b.version()).isEqualTo(HttpClient.Version.HTTP_2);
      assertThat(a.get(10, TimeUnit.SECONDS).body()).isEqualTo("/a");
      assertThat(aSawB).isTrue();
      assertThat(front.connections()).isEqualTo(1);
    }
  }

  private static HttpRequest request(TlsFront front, String path) {
    return HttpRequest.newBuilder(URI.create(front.url() + path)).build();
  }

  private static SSLContext trusting(String caData) throws Exception {
    var cert =
        CertificateFactory.getInstance("X.509")
            .generateCertificate(new ByteArrayInputStream(Base64.getDecoder().decode(caData)));
    var store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    store.setCertificateEntry("ca", cert);
    var trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(store);
    var context = SSLContext.getInstance("TLS");
    context.init(null, trust.getTrustManagers(), null);
    return context;
  }
}
