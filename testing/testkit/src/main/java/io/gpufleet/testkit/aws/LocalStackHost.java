package io.gpufleet.testkit.aws;

import java.io.IOException;
import java.io.UncheckedIOException;
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
import software.amazon.awssdk.regions.Region;

/**
 * LocalStack from PyPI ({@code localstack-core[runtime]}, pinned in
 * scripts/requirements-localstack.txt) run in host mode, without Docker and without an account
 * token: {@code python -m localstack.runtime.main} on a free loopback port. It needs Python ≥ 3.13
 * (the 2026.3 release uses {@code warnings.deprecated}), found through {@code
 * $GPUFLEET_LOCALSTACK_PYTHON}, else the nearest {@code .venv-localstack/bin/python}.
 */
final class LocalStackHost {
  static final String ENV = "GPUFLEET_LOCALSTACK_PYTHON";
  static final Path VENV_PYTHON = Path.of(".venv-localstack", "bin", "python");
  static final Duration READY_TIMEOUT = Duration.ofSeconds(120);
  static final String SERVICES = "ec2,s3,sns,sqs,events,ssm,sts,cloudwatch,scheduler";

  private LocalStackHost() {}

  /** $GPUFLEET_LOCALSTACK_PYTHON if set, else the nearest .venv-localstack from {@code start}. */
  static MotoServer.Search locate(String envValue, Path start) {
    var looked = new ArrayList<String>();
    if (envValue != null && !envValue.isBlank()) {
      Path python = Path.of(envValue.trim());
      looked.add("$" + ENV + "=" + python);
      return new MotoServer.Search(
          Files.isExecutable(python) ? Optional.of(python) : Optional.empty(), looked);
    }
    looked.add("$" + ENV + " (not set)");
    for (Path dir = start.toAbsolutePath().normalize(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve(VENV_PYTHON);
      looked.add(candidate.toString());
      if (Files.isExecutable(candidate)) {
        return new MotoServer.Search(Optional.of(candidate), looked);
      }
    }
    return new MotoServer.Search(Optional.empty(), looked);
  }

  /** Starts LocalStack and returns once its health endpoint answers; fails with its log if not. */
  static AwsEmulator start(Path python) {
    int port = MotoServer.freeLoopbackPort();
    Path dir;
    Path log;
    try {
      Path target = Path.of("target");
      dir =
          Files.createTempDirectory(
              Files.isDirectory(target) ? target : Path.of(System.getProperty("java.io.tmpdir")),
              "localstack-" + port + "-");
      log = dir.resolve("localstack.log");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create LocalStack's directory", e);
    }
    var pb =
        new ProcessBuilder(python.toString(), "-m", "localstack.runtime.main")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    var env = pb.environment();
    env.put("GATEWAY_LISTEN", "127.0.0.1:" + port);
    env.put("LOCALSTACK_HOST", "127.0.0.1:" + port);
    env.put("SERVICES", SERVICES);
    env.put("FILESYSTEM_ROOT", dir.resolve("fs").toString());
    env.put("LOCALSTACK_VOLUME_DIR", dir.resolve("volume").toString());
    env.put("DNS_ADDRESS", "0");
    env.put("SKIP_SSL_CERT_DOWNLOAD", "1");
    env.put("DISABLE_EVENTS", "1");
    Process process;
    try {
      process = pb.start();
    } catch (IOException e) {
      throw new IllegalStateException("could not start LocalStack with " + python, e);
    }
    Thread reaper = new Thread(() -> MotoServer.stop(process), "localstack-" + port + "-reaper");
    Runtime.getRuntime().addShutdownHook(reaper);
    Runnable stop =
        () -> {
          MotoServer.stop(process);
          try {
            Runtime.getRuntime().removeShutdownHook(reaper);
          } catch (IllegalStateException shuttingDown) {
            // the hook is running or about to
          }
        };
    URI endpoint = URI.create("http://127.0.0.1:" + port);
    try {
      awaitReady(process, endpoint, log);
    } catch (RuntimeException e) {
      stop.run();
      throw e;
    }
    return new AwsEmulator(
        AwsEmulator.Kind.LOCALSTACK, endpoint, Region.US_EAST_1, "test", "test", stop);
  }

  private static void awaitReady(Process process, URI endpoint, Path log) {
    var http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    var probe =
        HttpRequest.newBuilder(endpoint.resolve("/_localstack/health"))
            .timeout(Duration.ofSeconds(2))
            .GET()
            .build();
    Instant deadline = Instant.now().plus(READY_TIMEOUT);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "LocalStack exited with code "
                + process.exitValue()
                + " (log "
                + log
                + "):\n"
                + tail(log));
      }
      try {
        if (http.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for LocalStack", e);
      }
      try {
        process.waitFor(250, java.util.concurrent.TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for LocalStack", e);
      }
    }
    throw new IllegalStateException(
        "LocalStack did not answer "
            + endpoint.resolve("/_localstack/health")
            + " within "
            + READY_TIMEOUT.toSeconds()
            + " s (log "
            + log
            + "):\n"
            + tail(log));
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
