package io.gpufleet.bench;

import io.gpufleet.core.catalog.Regions;
import io.gpufleet.core.lambda.RestoreSafeRandom;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * AWS's own host names for a bench child, so that it reaches the stubs as it reaches AWS in Lambda:
 * with no endpoint override, at {@code https://<prefix>.<region>.amazonaws.com/} (port 443), one
 * connection and one full TLS handshake per host, its host name checked against the certificate.
 * The child's JDK resolves names through a hosts file ({@code -Djdk.net.hosts.file}) that leads
 * each endpoint prefix to the loopback address of the stub serving it; every other prefix goes to a
 * fallback stub, and a name outside the file does not resolve, so nothing reaches real AWS.
 *
 * <p>Each bench process takes addresses of its own ({@code 127.B.C.1} to {@code .8}, B and C drawn
 * at random), so two benches on one machine do not meet on port 443. Listening there needs root (or
 * {@code CAP_NET_BIND_SERVICE}); {@link #available()} says whether this process may.
 */
final class AwsHosts {
  static final int PORT = 443;

  /**
   * The endpoint prefixes the functions' AWS adapters call ({@code AwsJson}, {@code AwsQuery},
   * {@code AwsRestJson}, {@code Ec2Query}, {@code S3Rest}).
   */
  static final List<String> PREFIXES =
      List.of(
          "api.pricing",
          "ce",
          "ec2",
          "eks",
          "events",
          "monitoring",
          "s3",
          "secretsmanager",
          "servicequotas",
          "sns",
          "ssm",
          "sts");

  private final String net;
  private final Map<String, InetAddress> routes = new LinkedHashMap<>();
  private final Map<String, InetAddress> names = new LinkedHashMap<>();
  private InetAddress fallback;

  private AwsHosts(String net) {
    this.net = net;
  }

  /** Addresses of its own for this process: {@code 127.B.C.n}. */
  static AwsHosts allocate() {
    return new AwsHosts(
        "127."
            + RestoreSafeRandom.nextInt(16, 250)
            + "."
            + RestoreSafeRandom.nextInt(0, 256)
            + ".");
  }

  /** The {@code n}-th address (1 to 8) of this process. */
  InetAddress address(int n) {
    if (n < 1 || n > 8) {
      throw new IllegalArgumentException("address " + n + ": 1 to 8");
    }
    try {
      return InetAddress.getByName(net + n);
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  /** All eight, for the certificate's IP names (the bench's own clients call them by address). */
  List<InetAddress> addresses() {
    var all = new ArrayList<InetAddress>();
    for (int n = 1; n <= 8; n++) {
      all.add(address(n));
    }
    return all;
  }

  /** Where {@code address(n)} listens: port 443. */
  InetSocketAddress socket(int n) {
    return new InetSocketAddress(address(n), PORT);
  }

  /**
   * Whether this process may listen on port 443 of its addresses; empty if it may, else why not (a
   * bench then falls back to endpoint overrides and says so).
   */
  Optional<String> unavailable() {
    try (var probe = new ServerSocket()) {
      probe.bind(socket(8));
      return Optional.empty();
    } catch (IOException e) {
      return Optional.of("cannot listen on " + net + "8:" + PORT + " (" + e.getMessage() + ")");
    }
  }

  /** Leads {@code prefix} (one of {@link #PREFIXES}) in every region to {@code address}. */
  AwsHosts route(String prefix, InetAddress address) {
    if (!PREFIXES.contains(prefix)) {
      throw new IllegalArgumentException("not an endpoint prefix the functions call: " + prefix);
    }
    routes.put(prefix, address);
    return this;
  }

  /** Leads one more host name (e.g. an S3 bucket's virtual host) to {@code address}. */
  AwsHosts name(String host, InetAddress address) {
    names.put(host, address);
    return this;
  }

  /** Where every prefix without a route of its own leads. */
  AwsHosts fallback(InetAddress address) {
    this.fallback = address;
    return this;
  }

  /** The hosts file's lines: {@code localhost}, then each prefix in each commercial region. */
  List<String> lines() {
    var lines = new ArrayList<String>();
    lines.add("127.0.0.1 localhost");
    for (String region : Regions.COMMERCIAL) {
      for (String prefix : PREFIXES) {
        InetAddress to = routes.getOrDefault(prefix, fallback);
        if (to != null) {
          lines.add(to.getHostAddress() + " " + host(prefix, region));
        }
      }
    }
    names.forEach((host, to) -> lines.add(to.getHostAddress() + " " + host));
    return lines;
  }

  /** AWS's host name for {@code prefix} in {@code region} (the commercial partition). */
  static String host(String prefix, String region) {
    return prefix + "." + region + ".amazonaws.com";
  }

  /** Writes the hosts file to {@code file}: the child's {@code -Djdk.net.hosts.file}. */
  Path write(Path file) {
    try {
      Files.write(file, lines());
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The certificate's DNS names that cover every host of {@link #lines()}: in each region {@code
   * *.<region>.amazonaws.com}, and a level deeper where a name has two labels before the region
   * ({@code api.pricing.}, an S3 bucket's {@code <bucket>.s3.}).
   */
  static List<String> certificateNames() {
    var all = new ArrayList<String>();
    for (String region : Regions.COMMERCIAL) {
      all.add("*." + region + ".amazonaws.com");
      all.add("*.pricing." + region + ".amazonaws.com");
      all.add("*.s3." + region + ".amazonaws.com");
    }
    return all;
  }
}
