package io.gpufleet.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpufleet.core.catalog.Regions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * bench cold behind AWS's own host names: the hosts file leads every endpoint the functions call to
 * the stub serving it, the certificate covers every name in it, and a function's own client, built
 * as in Lambda with no endpoint override, reaches the stub by name over a verified TLS connection.
 */
class AwsHostsTest {

  @Test
  void shouldLeadEveryPrefixOfEveryRegionToItsStubAndNothingElse() {
    var hosts = AwsHosts.allocate();
    hosts
        .route("eks", hosts.address(1))
        .route("api.pricing", hosts.address(7))
        .fallback(hosts.address(4))
        .name("reports.s3.us-east-1.amazonaws.com", hosts.address(6));

    var lines = hosts.lines();

    assertThat(lines)
        .startsWith("127.0.0.1 localhost")
        .contains(
            hosts.address(1).getHostAddress() + " eks.eu-west-1.amazonaws.com",
            hosts.address(7).getHostAddress() + " api.pricing.us-east-1.amazonaws.com",
            hosts.address(4).getHostAddress() + " ec2.ap-south-2.amazonaws.com",
            hosts.address(6).getHostAddress() + " reports.s3.us-east-1.amazonaws.com")
        .hasSize(1 + Regions.COMMERCIAL.size() * AwsHosts.PREFIXES.size() + 1);
    assertThat(hosts.address(1).getHostAddress()).matches("127\\.\\d+\\.\\d+\\.1");
    // every name the file gives is one the certificate is valid for (one-label wildcards)
    for (String line : lines) {
      String host = line.substring(line.indexOf(' ') + 1);
      if (!host.equals("localhost")) {
        assertThat(AwsHosts.certificateNames()).anyMatch(n -> covers(n, host));
      }
    }
    assertThat(covers("*.us-east-1.amazonaws.com", "api.pricing.us-east-1.amazonaws.com"))
        .isFalse();
  }

  @Test
  void shouldRefuseAPrefixNoFunctionCalls() {
    var hosts = AwsHosts.allocate();
    assertThatThrownBy(() -> hosts.route("dynamodb", hosts.address(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("dynamodb");
    assertThatThrownBy(() -> hosts.address(9)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void shouldLetAFunctionsOwnClientReachTheStubByAwssHostName() throws Exception {
    Path javaHome = Path.of(System.getProperty("java.home"));
    try (var aws = ColdAws.start(javaHome)) {
      assumeTrue(aws.named(), "needs port 443 (root): " + aws.description());
      var pb = probe(aws, javaHome);

      var out = run(pb);

      assertThat(aws.environment()).doesNotContainKey("AWS_ENDPOINT_URL_EVENTBRIDGE");
      assertThat(out)
          .contains("endpoint https://events.us-east-1.amazonaws.com/")
          .contains("failed 0")
          .contains("sts " + aws.hosts().address(4).getHostAddress())
          .contains("elsewhere unresolved");
      assertThat(aws.outcomeEvents()).isEqualTo(1);
      assertThat(aws.description()).contains("hosts file");
    }
  }

  @Test
  void shouldFailTheHandshakeWhereTheNameIsNotTheCertificates() throws Exception {
    Path javaHome = Path.of(System.getProperty("java.home"));
    try (var aws = ColdAws.start(javaHome)) {
      assumeTrue(aws.named(), "needs port 443 (root): " + aws.description());
      // a name the hosts file leads to a stub but the certificate does not carry
      aws.hosts().name("events.us-east-1.example.net", aws.hosts().address(2));
      var pb = probe(aws, javaHome);
      pb.environment().put("AWS_ENDPOINT_URL_EVENTBRIDGE", "https://events.us-east-1.example.net");

      var out = run(pb);

      assertThat(out).contains("No subject alternative DNS name matching");
      assertThat(aws.outcomeEvents()).isZero();
    }
  }

  /** The probe child as bench cold starts a function: its JVM options and its environment. */
  private static ProcessBuilder probe(ColdAws aws, Path javaHome) {
    var cmd = new ArrayList<String>();
    cmd.add(javaHome.resolve("bin/java").toString());
    cmd.addAll(aws.functionJvmOptions());
    cmd.addAll(
        List.of("-cp", System.getProperty("java.class.path"), AwsHostsProbe.class.getName()));
    var pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().keySet().removeIf(k -> k.startsWith("AWS_"));
    pb.environment().putAll(aws.environment());
    pb.environment().put("AWS_REGION", "us-east-1");
    return pb;
  }

  private static String run(ProcessBuilder pb) throws IOException, InterruptedException {
    var p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as(out).isTrue();
    return out;
  }

  /** RFC 6125's rule as the JDK applies it: a leading {@code *} stands for one whole label. */
  static boolean covers(String certificateName, String host) {
    if (!certificateName.startsWith("*.")) {
      return certificateName.equals(host);
    }
    int dot = host.indexOf('.');
    return dot > 0 && host.substring(dot + 1).equals(certificateName.substring(2));
  }
}
