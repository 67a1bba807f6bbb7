package io.gpufleet.core.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.gpufleet.core.aws.RenewableCredentialsProvider;
import io.gpufleet.core.lambda.SnapStart;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.utils.SdkAutoCloseable;

/**
 * What a SnapStart restore renews ({@link SnapStart#afterRestore()}, called by each function's CRaC
 * afterRestore hook): nothing resolved, signed or connected during INIT survives it.
 */
class SnapStartRenewalTest {
  static final Clock FIXED = Clock.fixed(Instant.parse("2026-12-01T03:00:00Z"), ZoneOffset.UTC);

  @Test
  void shouldSignTheNextEksTokenWithTheRestoredEnvironmentsCredentials() {
    // Given a token signed during INIT with the INIT credentials
    var creds = new AtomicReference<>(AwsBasicCredentials.create("ASIAINIT", "s"));
    AwsCredentialsProvider provider = creds::get;
    var tokens = new EksTokenProvider("c", Region.US_EAST_1, provider, FIXED);
    String atInit = tokens.get();
    assertThat(signer(atInit)).isEqualTo("ASIAINIT");

    // When the environment is restored with other credentials
    creds.set(AwsBasicCredentials.create("ASIARESTORED", "s"));
    assertThat(tokens.get()).as("cached until renewed").isEqualTo(atInit);
    SnapStart.afterRestore();

    // Then the next token is signed afresh with them
    assertThat(signer(tokens.get())).isEqualTo("ASIARESTORED");
  }

  @Test
  void shouldReplaceTheCredentialsChainAndCloseTheOldOne() {
    // Given a renewable chain that resolved the INIT credentials
    var built = new AtomicInteger();
    var closed = new AtomicInteger();
    var provider =
        new RenewableCredentialsProvider(
            () -> new Closing("ASIA" + built.incrementAndGet(), closed));
    assertThat(provider.resolveCredentials().accessKeyId()).isEqualTo("ASIA1");

    // When the environment is restored
    SnapStart.afterRestore();

    // Then a new chain resolves, and the one from INIT is closed
    assertThat(provider.resolveCredentials().accessKeyId()).isEqualTo("ASIA2");
    assertThat(closed.get()).isEqualTo(1);
  }

  @Test
  void shouldOpenNewConnectionsToTheApiServerAfterARestore() throws Exception {
    // Given an API server that records the client port of every request
    List<Integer> ports = new CopyOnWriteArrayList<>();
    var server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/api/v1/namespaces/default",
        ex -> {
          ports.add(ex.getRemoteAddress().getPort());
          byte[] body =
              "{\"kind\":\"Namespace\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"default\"}}"
                  .getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().add("Content-Type", "application/json");
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    server.start();
    String url = "http://127.0.0.1:" + server.getAddress().getPort();
    try (var client = KubeClients.forUrl(url, Optional.empty(), () -> "t")) {
      // and a client whose connection was opened during INIT (and is reused while it lives)
      client.namespaces().withName("default").get();
      client.namespaces().withName("default").get();
      assertThat(ports.get(1)).isEqualTo(ports.get(0));

      // When the environment is restored
      SnapStart.afterRestore();
      client.namespaces().withName("default").get();

      // Then the same fabric8 client works over a new connection
      assertThat(ports.get(2)).isNotEqualTo(ports.get(0));
    } finally {
      server.stop(0);
    }
  }

  /** The access key id in an EKS token's presigned URL. */
  static String signer(String token) {
    String url =
        new String(
            Base64.getUrlDecoder().decode(token.substring("k8s-aws-v1.".length())),
            StandardCharsets.UTF_8);
    String credential =
        URLDecoder.decode(
            url.replaceAll(".*[?&]X-Amz-Credential=([^&]*).*", "$1"), StandardCharsets.UTF_8);
    return credential.substring(0, credential.indexOf('/'));
  }

  record Closing(String key, AtomicInteger closed)
      implements AwsCredentialsProvider, SdkAutoCloseable {
    @Override
    public software.amazon.awssdk.auth.credentials.AwsCredentials resolveCredentials() {
      return StaticCredentialsProvider.create(AwsBasicCredentials.create(key, "s"))
          .resolveCredentials();
    }

    @Override
    public void close() {
      closed.incrementAndGet();
    }
  }
}
