package io.gpufleet.testkit.aws;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import software.amazon.awssdk.regions.Region;

/** Finds and runs {@code moto_server} as a child process on a free loopback port. */
final class MotoServer {
  static final String ENV = "MOTO_SERVER";
  static final Path VENV_BINARY = Path.of(".venv", "bin", "moto_server");
  static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
  private static final int START_ATTEMPTS = 3;

  private MotoServer() {}

  /** Where moto_server was looked for, for error messages. */
  record Search(Optional<Path> binary, List<String> looked) {}

  /** $MOTO_SERVER if set, else the nearest {@code .venv/bin/moto_server} from {@code start} up. */
  static Search locate(String envValue, Path start) {
    var looked = new ArrayList<String>();
    if (envValue != null && !envValue.isBlank()) {
      Path binary = Path.of(envValue.trim());
      looked.add("$" + ENV + "=" + binary);
      return new Search(
          Files.isExecutable(binary) ? Optional.of(binary) : Optional.empty(), looked);
    }
    looked.add("$" + ENV + " (not set)");
    for (Path dir = start.toAbsolutePath().normalize(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve(VENV_BINARY);
      looked.add(candidate.toString());
      if (Files.isExecutable(candidate)) {
        return new Search(Optional.of(candidate), looked);
      }
    }
    return new Search(Optional.empty(), looked);
  }

  /** Starts moto_server and returns once it answers HTTP; fails with its log when it cannot. */
  static AwsEmulator start(Path binary) {
    IllegalStateException last = null;
    for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      try {
        return startOnce(binary);
      } catch (PortTaken e) {
        // another process grabbed the free port between probe and bind: pick another one
        last = e;
      }
    }
    throw last;
  }

  private static final class PortTaken extends IllegalStateException {
    PortTaken(String message) {
      super(message);
    }
  }

  private static AwsEmulator startOnce(Path binary) {
    int port = freeLoopbackPort();
    Path log = logFile(port);
    Process process;
    try {
      process =
          new ProcessBuilder(binary.toString(), "-H", "127.0.0.1", "-p", Integer.toString(port))
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
    } catch (IOException e) {
      throw new IllegalStateException("could not start " + binary + ": " + e.getMessage(), e);
    }
    Thread reaper = new Thread(() -> stop(process), "moto-server-" + port + "-reaper");
    Runtime.getRuntime().addShutdownHook(reaper);
    Runnable stop =
        () -> {
          stop(process);
          try {
            Runtime.getRuntime().removeShutdownHook(reaper);
          } catch (IllegalStateException shuttingDown) {
            // the hook is running or about to: nothing left to do
          }
        };
    URI endpoint = URI.create("http://127.0.0.1:" + port);
    try {
      awaitReady(process, endpoint, log);
      warmEc2(endpoint, log);
    } catch (RuntimeException e) {
      stop.run();
      throw e;
    }
    return new AwsEmulator(AwsEmulator.Kind.MOTO, endpoint, Region.US_EAST_1, "test", "test", stop);
  }

  static final Duration EC2_WARM_TIMEOUT = Duration.ofSeconds(180);

  /**
   * moto builds a region's EC2 backend (its AMI and offering tables, read from JSON) on that
   * region's first EC2 call: 15-45 s on a loaded 2-core host, more than the 30 s call timeout of
   * the project's SDK clients (AwsClients). One DescribeRegions for us-east-1 here, under a timeout
   * of its own, pays for it before a test's client does. moto reads the region from the credential
   * scope and does not check signatures.
   */
  private static void warmEc2(URI endpoint, Path log) {
    var http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    var request =
        HttpRequest.newBuilder(endpoint.resolve("/"))
            .timeout(EC2_WARM_TIMEOUT)
            .header("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
            .header(
                "Authorization",
                "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/ec2/aws4_request,"
                    + " SignedHeaders=host, Signature=0")
            .POST(HttpRequest.BodyPublishers.ofString("Action=DescribeRegions&Version=2016-11-15"))
            .build();
    try {
      var answer = http.send(request, HttpResponse.BodyHandlers.discarding());
      if (answer.statusCode() != 200) {
        throw new IllegalStateException(
            "moto_server answered the EC2 warm-up with HTTP "
                + answer.statusCode()
                + " (log "
                + log
                + "): "
                + tail(log));
      }
    } catch (IOException e) {
      throw new IllegalStateException(
          "moto_server did not answer the EC2 warm-up within " + EC2_WARM_TIMEOUT + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while warming moto_server's EC2", e);
    }
  }

  /** Readiness probe: GET /moto-api/ until it answers, the process dies, or the timeout passes. */
  private static void awaitReady(Process process, URI endpoint, Path log) {
    var http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    var probe =
        HttpRequest.newBuilder(endpoint.resolve("/moto-api/"))
            .timeout(Duration.ofSeconds(2))
            .GET()
            .build();
    Instant deadline = Instant.now().plus(READY_TIMEOUT);
    while (Instant.now().isBefore(deadline)) {
      try {
        http.send(probe, HttpResponse.BodyHandlers.discarding());
        return;
      } catch (ConnectException | java.net.http.HttpConnectTimeoutException notYet) {
        // not listening yet
      } catch (IOException e) {
        // e.g. connection reset while the server starts: probe again
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for moto_server", e);
      }
      if (exitedWithin(process, Duration.ofMillis(100))) {
        String output = tail(log);
        String message =
            "moto_server exited with code "
                + process.exitValue()
                + " before answering on "
                + endpoint
                + " (log "
                + log
                + "):\n"
                + output;
        throw output.contains("Address already in use")
            ? new PortTaken(message)
            : new IllegalStateException(message);
      }
    }
    throw new IllegalStateException(
        "moto_server did not answer GET "
            + endpoint.resolve("/moto-api/")
            + " within "
            + READY_TIMEOUT.toSeconds()
            + " s (log "
            + log
            + "):\n"
            + tail(log));
  }

  private static boolean exitedWithin(Process process, Duration wait) {
    try {
      process.onExit().get(wait.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      return !process.isAlive();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for moto_server", e);
    }
  }

  /** Stops the process and everything it started; escalates to SIGKILL after a grace period. */
  static void stop(Process process) {
    List<ProcessHandle> children = process.descendants().toList();
    children.forEach(ProcessHandle::destroy);
    process.destroy();
    if (!exitedWithin(process, STOP_TIMEOUT)) {
      process.destroyForcibly();
    }
    children.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
  }

  static int freeLoopbackPort() {
    try (var socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free loopback port", e);
    }
  }

  private static Path logFile(int port) {
    try {
      Path target = Path.of("target");
      Path dir = Files.isDirectory(target) ? target : Path.of(System.getProperty("java.io.tmpdir"));
      return Files.createTempFile(dir, "moto-server-" + port + "-", ".log");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the moto_server log file", e);
    }
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    } catch (IOException e) {
      return "(log unreadable: " + e.getMessage() + ")";
    }
  }
}
