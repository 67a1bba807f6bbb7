package io.gpufleet.testkit.lambda;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * One Lambda execution environment on loopback, run the way the {@code java21} managed runtime runs
 * a function: the deployment package as the task root ({@code lib/<jar>}; the working directory,
 * from which the runtime interface client's customer class loader loads the handler), the Runtime
 * Interface Emulator as the Lambda service ({@code aws-lambda-rie}, built from its Go module), and
 * the real runtime interface client ({@code
 * com.amazonaws.services.lambda.runtime.api.client.AWSLambda}) as the runtime, with the JVM options
 * of the managed runtime's bootstrap and the handler as the last argument.
 *
 * <p>Two credential modes, as Lambda hands them out:
 *
 * <ul>
 *   <li>{@link Mode#SNAP_START}: {@code AWS_LAMBDA_INITIALIZATION_TYPE=snap-start}, container
 *       credentials only ({@code AWS_CONTAINER_CREDENTIALS_FULL_URI} + {@code
 *       AWS_CONTAINER_AUTHORIZATION_TOKEN} from a {@link LambdaPlatform}, no {@code
 *       AWS_ACCESS_KEY_ID}, {@code AWS_SECRET_ACCESS_KEY}, {@code AWS_SESSION_TOKEN}, no log group
 *       or stream variables), and the runtime API behind the platform so {@code restore/next} is
 *       answered as a restore.
 *   <li>{@link Mode#ON_DEMAND}: {@code AWS_LAMBDA_INITIALIZATION_TYPE=on-demand}, environment
 *       credentials only.
 * </ul>
 */
public final class LambdaRuntime implements AutoCloseable {
  public static final String RIC_MAIN =
      "com.amazonaws.services.lambda.runtime.api.client.AWSLambda";
  public static final String RIE_ENV = "GPUFLEET_RIE";
  public static final Path RIE_SCRIPT = Path.of("scripts", "rie-bin.sh");

  public enum Mode {
    SNAP_START,
    ON_DEMAND
  }

  /** What one invocation answered, and the lines the environment printed meanwhile. */
  public record Invocation(int status, String body, List<String> lines) {}

  private final Process rie;
  private final URI invokeUri;
  private final Duration timeout;
  private final List<String> output = new ArrayList<>();
  private final Thread reader;

  private LambdaRuntime(Process rie, URI invokeUri, Duration timeout) {
    this.rie = rie;
    this.invokeUri = invokeUri;
    this.timeout = timeout;
    this.reader = Thread.ofPlatform().daemon().name("lambda-runtime-output").start(this::read);
  }

  /**
   * Starts the emulator for {@code function} from {@code jar}. {@code runtimeClasspath} is the
   * managed runtime's own jars (the runtime interface client and what it needs); {@code extraEnv}
   * is what the test adds beyond the template (endpoints of the emulated services only); {@code
   * accessKeyId} signs in ON_DEMAND mode; {@code platform} serves SNAP_START mode.
   */
  public static LambdaRuntime start(
      Path rieBinary,
      Path jar,
      List<Path> runtimeClasspath,
      SamTemplate.Function function,
      Mode mode,
      Map<String, String> extraEnv,
      String accessKeyId,
      LambdaPlatform platform,
      Path workDir) {
    try {
      Path task = packaged(jar, workDir.getParent());
      int invokePort = freePort();
      int runtimePort = freePort();
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      long heapKb = function.memoryMb() * 1024L * 85 / 100;

      var cmd = new ArrayList<String>();
      cmd.add(rieBinary.toString());
      cmd.add("--runtime-interface-emulator-address");
      cmd.add("127.0.0.1:" + invokePort);
      cmd.add("--runtime-api-address");
      cmd.add("127.0.0.1:" + runtimePort);
      // The bootstrap: env(1) sets what the emulator cannot (the platform's runtime API address)
      // and removes what Lambda does not set in this mode, then execs the JVM.
      cmd.add("/usr/bin/env");
      if (mode == Mode.SNAP_START) {
        for (String v :
            List.of(
                "AWS_ACCESS_KEY_ID",
                "AWS_SECRET_ACCESS_KEY",
                "AWS_SESSION_TOKEN",
                "AWS_LAMBDA_LOG_GROUP_NAME",
                "AWS_LAMBDA_LOG_STREAM_NAME")) {
          cmd.add("-u");
          cmd.add(v);
        }
        cmd.add("AWS_LAMBDA_RUNTIME_API=" + platform.address());
      }
      cmd.add(java);
      cmd.add("-XX:MaxHeapSize=" + heapKb + "k");
      cmd.add("-XX:+UseSerialGC");
      cmd.add("-XX:+TieredCompilation");
      cmd.add("-XX:TieredStopAtLevel=1");
      cmd.add("--add-opens=java.base/java.io=ALL-UNNAMED");
      cmd.add("-Dorg.crac.Core.Compat=com.amazonaws.services.lambda.crac");
      cmd.add("-Djava.net.preferIPv4Stack=true");
      cmd.add("-XX:+ErrorFileToStderr");
      cmd.add("--enable-native-access=ALL-UNNAMED");
      cmd.add("-classpath");
      cmd.add(String.join(":", runtimeClasspath.stream().map(Path::toString).toList()));
      cmd.add(RIC_MAIN);
      cmd.add(function.handler());

      var pb = new ProcessBuilder(cmd).directory(task.toFile()).redirectErrorStream(true);
      Map<String, String> env = pb.environment();
      env.clear();
      env.put("PATH", "/usr/local/bin:/usr/bin:/bin");
      env.put("LANG", "en_US.UTF-8");
      env.put("TZ", ":UTC");
      env.put("LAMBDA_TASK_ROOT", task.toString());
      env.put("AWS_EXECUTION_ENV", "AWS_Lambda_java21");
      env.put("AWS_LAMBDA_FUNCTION_NAME", function.functionName());
      env.put("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", String.valueOf(function.memoryMb()));
      env.put("AWS_LAMBDA_FUNCTION_TIMEOUT", String.valueOf(function.timeoutSeconds()));
      env.put("AWS_LAMBDA_FUNCTION_VERSION", mode == Mode.SNAP_START ? "1" : "$LATEST");
      env.put("AWS_LAMBDA_FUNCTION_HANDLER", function.handler());
      env.put(
          "AWS_LAMBDA_INITIALIZATION_TYPE", mode == Mode.SNAP_START ? "snap-start" : "on-demand");
      env.putAll(function.environment());
      env.putAll(extraEnv);
      if (mode == Mode.SNAP_START) {
        env.put("AWS_CONTAINER_CREDENTIALS_FULL_URI", platform.credentialsUri());
        env.put("AWS_CONTAINER_AUTHORIZATION_TOKEN", platform.token());
        platform.forwardTo("127.0.0.1:" + runtimePort);
      } else {
        env.put("AWS_ACCESS_KEY_ID", accessKeyId);
        env.put("AWS_SECRET_ACCESS_KEY", "secret-" + accessKeyId);
        env.put("AWS_SESSION_TOKEN", "session-" + accessKeyId);
      }
      Process process = pb.start();
      var runtime =
          new LambdaRuntime(
              process,
              URI.create(
                  "http://127.0.0.1:" + invokePort + "/2015-03-31/functions/function/invocations"),
              Duration.ofSeconds(Math.min(function.timeoutSeconds(), 120) + 30));
      runtime.awaitListening(invokePort);
      return runtime;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Invokes the function with {@code payload} through the emulator's invoke endpoint. */
  public Invocation invoke(byte[] payload) {
    int before;
    synchronized (output) {
      before = output.size();
    }
    try (var http = HttpClient.newHttpClient()) {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(invokeUri)
                  .timeout(timeout)
                  .POST(HttpRequest.BodyPublishers.ofByteArray(payload))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      // The emulator prints "END RequestId" and "REPORT RequestId" once the runtime has answered;
      // the function's own lines come before them.
      // (none when INIT failed: the emulator answers 502 and prints no report)
      if (response.statusCode() == 200) {
        awaitLine(l -> l.startsWith("REPORT RequestId"), before, Duration.ofSeconds(10));
      }
      synchronized (output) {
        return new Invocation(
            response.statusCode(),
            response.body(),
            List.copyOf(output.subList(before, output.size())));
      }
    } catch (IOException e) {
      throw new IllegalStateException("invoke failed; output:\n" + String.join("\n", output()), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Every line the emulator and the function printed so far. */
  public List<String> output() {
    synchronized (output) {
      return List.copyOf(output);
    }
  }

  /** Waits (bounded) until a line from index {@code from} on matches; false on timeout or exit. */
  public boolean awaitLine(Predicate<String> matches, int from, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    synchronized (output) {
      while (true) {
        for (int i = from; i < output.size(); i++) {
          if (matches.test(output.get(i))) {
            return true;
          }
        }
        long left = deadline - System.nanoTime();
        if (left <= 0 || (!rie.isAlive() && !reader.isAlive())) {
          return false;
        }
        try {
          output.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
    }
  }

  private void read() {
    try (InputStream in = rie.getInputStream();
        var lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        synchronized (output) {
          output.add(line);
          output.notifyAll();
        }
      }
    } catch (IOException e) {
      // the process is gone
    } finally {
      synchronized (output) {
        output.notifyAll();
      }
    }
  }

  private void awaitListening(int port) {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < deadline) {
      if (!rie.isAlive()) {
        throw new IllegalStateException(
            "aws-lambda-rie exited with " + rie.exitValue() + ":\n" + String.join("\n", output()));
      }
      try (var socket = new java.net.Socket("127.0.0.1", port)) {
        return;
      } catch (IOException notYet) {
        // the emulator prints nothing when it listens: wait for its output or its exit instead
        awaitLine(l -> false, 0, Duration.ofMillis(50));
      }
    }
    throw new IllegalStateException("aws-lambda-rie did not listen on " + port);
  }

  private static int freePort() throws IOException {
    try (var socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /**
   * The deployment package as {@code sam build} makes it (the root Makefile): the shaded jar,
   * unchanged, in {@code lib/} of the task root, from where the runtime interface client's customer
   * class loader loads every jar. Laid out once per jar (and its modification time) under {@code
   * cache}, shared by the runs of one test class (the runtime writes nothing there).
   */
  private static Path packaged(Path jar, Path cache) throws IOException {
    Path task =
        cache.resolve(
            "task-"
                + jar.getFileName()
                + "-"
                + Files.getLastModifiedTime(jar).toMillis()
                + "-"
                + Files.size(jar));
    Path lib = task.resolve("lib").resolve(jar.getFileName());
    synchronized (LambdaRuntime.class) {
      if (!Files.exists(lib)) {
        Files.createDirectories(lib.getParent());
        Files.copy(jar, lib);
      }
    }
    return task;
  }

  /**
   * The emulator binary: $GPUFLEET_RIE, else what {@code scripts/rie-bin.sh} (found from the
   * working directory upwards) prints, building it first. Fails with the reason, never skips.
   */
  public static Path locateRie() {
    String given = System.getenv(RIE_ENV);
    if (given != null && !given.isBlank()) {
      Path p = Path.of(given.trim());
      if (!Files.isExecutable(p)) {
        throw new IllegalStateException("$" + RIE_ENV + "=" + p + " is not an executable file");
      }
      return p;
    }
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path script = dir.resolve(RIE_SCRIPT);
      if (Files.isRegularFile(script)) {
        try {
          Process p =
              new ProcessBuilder("bash", script.toString())
                  .redirectError(ProcessBuilder.Redirect.INHERIT)
                  .start();
          String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
          int code = p.waitFor();
          if (code != 0 || out.isEmpty()) {
            throw new IllegalStateException(
                "the Lambda runtime tier needs aws-lambda-rie: "
                    + script
                    + " failed with exit code "
                    + code
                    + " (is Go installed?)");
          }
          return Path.of(out.lines().reduce((a, b) -> b).orElseThrow());
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
    }
    throw new IllegalStateException(
        "the Lambda runtime tier needs aws-lambda-rie: set $"
            + RIE_ENV
            + " or run from the repository so "
            + RIE_SCRIPT
            + " can build it");
  }

  /** The jars of the classes given (the runtime interface client and its dependencies). */
  public static List<Path> jarsOf(Class<?>... classes) {
    var jars = new LinkedHashMap<Path, Boolean>();
    for (Class<?> c : classes) {
      try {
        jars.put(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()), true);
      } catch (java.net.URISyntaxException e) {
        throw new IllegalStateException(e);
      }
    }
    return List.copyOf(jars.keySet());
  }

  @Override
  public void close() {
    rie.descendants().forEach(ProcessHandle::destroy);
    rie.destroy();
    try {
      if (!rie.waitFor(10, TimeUnit.SECONDS)) {
        rie.descendants().forEach(ProcessHandle::destroyForcibly);
        rie.destroyForcibly();
      }
      reader.join(Duration.ofSeconds(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
