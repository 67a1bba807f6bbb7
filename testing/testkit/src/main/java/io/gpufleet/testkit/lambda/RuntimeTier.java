package io.gpufleet.testkit.lambda;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The Lambda runtime tier for one function: its deployment jar under the Runtime Interface Emulator
 * with the real runtime interface client, configured from {@code template.yaml}, its AWS calls
 * going to an emulator through a recording {@link AwsFront}, its Kubernetes calls to a (simulated
 * or real) API server through another, one payload through the invoke endpoint.
 */
public final class RuntimeTier {
  /** Credentials handed out by the emulated platform; each names the phase that used it. */
  public static final String INIT_KEY = "ASIASNAPSHOTINIT0001";

  public static final String RESTORED_KEY = "ASIARESTOREDENV00002";
  public static final String ENVIRONMENT_KEY = "ASIAENVIRONMENT00003";
  public static final String BEFORE_CHECKPOINT_LOG = "snapstart beforeCheckpoint";
  public static final String AFTER_RESTORE_LOG = "snapstart afterRestore";
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * What to run: the template and the function's logical id in it, the stack's values, the jar, the
   * AWS emulator's endpoint, the Kubernetes API server's URL, and where to unpack the jar.
   */
  public record Setup(
      Path template,
      String logicalId,
      SamTemplate.Stack stack,
      Path jar,
      URI awsEmulator,
      String kubeApi,
      Path workDir) {}

  /** Everything one run shows. */
  public record Result(
      LambdaRuntime.Mode mode,
      SamTemplate.Function function,
      LambdaRuntime.Invocation invocation,
      List<LambdaPlatform.Call> runtimeApi,
      List<AwsFront.Call> aws,
      List<AwsFront.Call> kube,
      List<String> output,
      String beforeRestoreFailure) {

    /** When the platform answered restore/next (SNAP_START only). */
    public Instant restoredAt() {
      return runtimeApi.stream()
          .filter(c -> c.path().equals(LambdaPlatform.RESTORE_NEXT) && c.status() == 200)
          .map(LambdaPlatform.Call::at)
          .findFirst()
          .orElse(Instant.MAX);
    }

    /** The JSON objects the function printed (structured logs and EMF records). */
    public List<JsonNode> jsonLines() {
      var out = new ArrayList<JsonNode>();
      for (String line : output) {
        String t = line.strip();
        if (t.startsWith("{") && t.endsWith("}")) {
          try {
            out.add(JSON.readTree(t));
          } catch (IOException notJson) {
            // a line that merely looks like JSON
          }
        }
      }
      return out;
    }

    /** The EMF records ({@code _aws.CloudWatchMetrics}) among them. */
    public List<JsonNode> emf() {
      return jsonLines().stream().filter(j -> j.path("_aws").has("CloudWatchMetrics")).toList();
    }

    /** The structured log lines (Powertools JSON layout: level and message) among them. */
    public List<JsonNode> logs() {
      return jsonLines().stream().filter(j -> j.has("level") && j.has("message")).toList();
    }

    public JsonNode body() {
      try {
        return JSON.readTree(invocation.body());
      } catch (IOException e) {
        throw new IllegalStateException("not JSON: " + invocation.body(), e);
      }
    }
  }

  private RuntimeTier() {}

  /**
   * Runs the function once in {@code mode} with {@code payload}; {@code extraEnv} holds only what
   * points the function at the emulated services.
   */
  public static Result run(
      Setup setup,
      LambdaRuntime.Mode mode,
      byte[] payload,
      Map<String, String> extraEnv,
      List<Path> runtimeClasspath) {
    var function = SamTemplate.load(setup.template()).function(setup.logicalId(), setup.stack());
    Path rie = LambdaRuntime.locateRie();
    try (var platform = LambdaPlatform.start(new LambdaPlatform.Keys(INIT_KEY, RESTORED_KEY));
        var kube = AwsFront.start(URI.create(setup.kubeApi()), setup.kubeApi());
        var aws = AwsFront.start(setup.awsEmulator(), kube.endpoint().toString())) {
      var env = new HashMap<String, String>();
      env.put("AWS_REGION", setup.stack().region());
      env.put("AWS_DEFAULT_REGION", setup.stack().region());
      env.put("AWS_ENDPOINT_URL", aws.endpoint().toString());
      env.putAll(extraEnv);
      Path work = Files.createTempDirectory(setup.workDir(), mode.name().toLowerCase() + "-");
      var runtimeRef = new AtomicReference<LambdaRuntime>();
      // Lambda's order: beforeCheckpoint hooks ran (INIT is over), afterRestore hooks have not
      platform.requireBeforeRestore(
          () -> {
            LambdaRuntime r = runtimeRef.get();
            return r != null
                && r.awaitLine(l -> l.contains(BEFORE_CHECKPOINT_LOG), 0, Duration.ofSeconds(10))
                && r.output().stream().noneMatch(l -> l.contains(AFTER_RESTORE_LOG));
          });
      try (var runtime =
          LambdaRuntime.start(
              rie,
              setup.jar(),
              runtimeClasspath,
              function,
              mode,
              env,
              ENVIRONMENT_KEY,
              platform,
              work)) {
        runtimeRef.set(runtime);
        var invocation = runtime.invoke(payload);
        return new Result(
            mode,
            function,
            invocation,
            platform.log(),
            aws.calls(),
            kube.calls(),
            runtime.output(),
            platform.beforeRestoreFailure());
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * How a run broke Lambda's rules for credentials and the SnapStart lifecycle (empty when it kept
   * them). SNAP_START: beforeCheckpoint hooks, then restore/next, then afterRestore hooks, then
   * invocation/next; INIT calls signed with the INIT credentials and every call after the restore
   * (AWS requests and EKS tokens alike) with the restored environment's, so nothing resolved in
   * INIT is reused. ON_DEMAND: no restore, every call signed with the environment credentials.
   */
  public static List<String> lifecycleProblems(Result r) {
    var problems = new ArrayList<String>();
    var signed = new ArrayList<AwsFront.Call>(r.aws());
    signed.addAll(r.kube());
    if (signed.isEmpty()) {
      problems.add("no signed AWS or Kubernetes call at all: nothing was proven");
    }
    List<String> out = r.output();
    int before = indexOf(out, BEFORE_CHECKPOINT_LOG);
    int after = indexOf(out, AFTER_RESTORE_LOG);
    if (r.mode() == LambdaRuntime.Mode.SNAP_START) {
      Instant restored = r.restoredAt();
      if (restored == Instant.MAX) {
        problems.add("the runtime never asked for restore/next: " + r.runtimeApi());
      }
      if (r.beforeRestoreFailure() != null) {
        problems.add("at restore/next: " + r.beforeRestoreFailure());
      }
      r.runtimeApi().stream()
          .filter(c -> c.path().endsWith("/runtime/invocation/next"))
          .findFirst()
          .filter(c -> c.at().isBefore(restored))
          .ifPresent(c -> problems.add("invocation/next came before restore/next"));
      if (before < 0 || after < 0 || after < before) {
        problems.add(
            "hooks: beforeCheckpoint line at " + before + ", afterRestore line at " + after);
      }
      boolean afterRestoreCall = false;
      for (var c : signed) {
        String want = c.at().isBefore(restored) ? INIT_KEY : RESTORED_KEY;
        afterRestoreCall |= !c.at().isBefore(restored);
        if (!want.equals(c.accessKeyId())) {
          problems.add("signed with " + c.accessKeyId() + ", want " + want + ": " + c);
        }
      }
      if (!afterRestoreCall) {
        problems.add("no signed call after the restore: fresh credentials were not proven");
      }
    } else {
      if (r.runtimeApi().stream().anyMatch(c -> c.path().equals(LambdaPlatform.RESTORE_NEXT))) {
        problems.add("an on-demand environment asked for restore/next");
      }
      if (before >= 0 || after >= 0) {
        problems.add("CRaC hooks ran in an on-demand environment");
      }
      for (var c : signed) {
        if (!ENVIRONMENT_KEY.equals(c.accessKeyId())) {
          problems.add("signed with " + c.accessKeyId() + ", want " + ENVIRONMENT_KEY + ": " + c);
        }
      }
    }
    return problems;
  }

  /**
   * How the function's JSON logs and EMF metrics disagree with the template's Powertools variables
   * (empty when they agree): no log line names another service than {@code
   * POWERTOOLS_SERVICE_NAME}, the lines of the invocation's own thread and the SnapStart lifecycle
   * lines name it, every EMF record uses the namespace {@code POWERTOOLS_METRICS_NAMESPACE} with
   * the service as a dimension, and there is at least one of each. (Lines logged on worker threads
   * carry no Powertools context: service and request id are null there; see {@link
   * #contextlessLogLines}.)
   */
  public static List<String> telemetryProblems(Result r) {
    var problems = new ArrayList<String>();
    String service = r.function().environment().get("POWERTOOLS_SERVICE_NAME");
    String namespace = r.function().environment().get("POWERTOOLS_METRICS_NAMESPACE");
    var logs = r.logs();
    if (logs.stream().noneMatch(l -> !l.path("function_request_id").isNull())) {
      problems.add("no JSON log line inside the invocation");
    }
    for (var l : logs) {
      String named = l.path("service").isNull() ? null : l.path("service").asText(null);
      boolean mustName =
          !l.path("function_request_id").isNull()
              || l.path("message").asText().startsWith("snapstart ");
      if ((named != null || mustName) && !String.valueOf(service).equals(named)) {
        problems.add("log line without service " + service + ": " + l);
      }
    }
    var emf = r.emf();
    if (emf.isEmpty()) {
      problems.add("no EMF record");
    }
    for (var e : emf) {
      var metrics = e.path("_aws").path("CloudWatchMetrics");
      for (var m : metrics) {
        if (!String.valueOf(namespace).equals(m.path("Namespace").asText(null))) {
          problems.add("EMF namespace " + m.path("Namespace") + ", want " + namespace);
        }
      }
      if (!String.valueOf(service).equals(e.path("Service").asText(null))) {
        problems.add("EMF record without the Service dimension " + service + ": " + e);
      }
    }
    return problems;
  }

  /** Log lines with neither service nor request id (logged off the invocation's thread). */
  public static List<JsonNode> contextlessLogLines(Result r) {
    return r.logs().stream()
        .filter(l -> l.path("service").isNull() && l.path("function_request_id").isNull())
        .toList();
  }

  private static int indexOf(List<String> lines, String text) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(text)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * The managed runtime's own jars, copied by the build (maven-dependency-plugin, execution
   * lambda-runtime-lib) into the directory named by the system property {@code
   * gpufleet.lambda.runtime.lib}.
   */
  public static List<Path> runtimeLib() {
    String dir = System.getProperty("gpufleet.lambda.runtime.lib");
    if (dir == null) {
      throw new IllegalStateException(
          "-Dgpufleet.lambda.runtime.lib is not set: run the Lambda runtime tier with mvn verify");
    }
    try (var jars = Files.list(Path.of(dir))) {
      var list = jars.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
      if (list.stream().noneMatch(p -> p.getFileName().toString().contains("interface-client"))) {
        throw new IllegalStateException("no runtime interface client jar in " + dir);
      }
      return list;
    } catch (IOException e) {
      throw new IllegalStateException("cannot list " + dir, e);
    }
  }

  /**
   * A copy of the repository's template.yaml in {@code dir} with {@code from} (which must occur)
   * replaced by {@code to}: the tier must fail on a template that disagrees with the code.
   */
  public static Path mutatedTemplate(Path dir, String from, String to) {
    try {
      String text = Files.readString(repositoryRoot().resolve("template.yaml"));
      if (!text.contains(from)) {
        throw new IllegalArgumentException("template.yaml has no " + from);
      }
      Path copy = Files.createTempFile(dir, "template-", ".yaml");
      Files.writeString(copy, text.replace(from, to));
      return copy;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The repository root: the nearest directory upwards holding template.yaml and pom.xml. */
  public static Path repositoryRoot() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("template.yaml"))
          && Files.isRegularFile(dir.resolve("pom.xml"))) {
        return dir;
      }
    }
    throw new IllegalStateException("no template.yaml above " + Path.of("").toAbsolutePath());
  }

  /** The module's shaded deployment jar ({@code target/*-lambda.jar}), built by package. */
  public static Path lambdaJar(Path moduleDir) {
    try (var files = Files.list(moduleDir.resolve("target"))) {
      return files
          .filter(p -> p.getFileName().toString().endsWith("-lambda.jar"))
          .findFirst()
          .orElseThrow(
              () ->
                  new IllegalStateException(
                      "no *-lambda.jar in " + moduleDir.resolve("target") + ": run mvn package"));
    } catch (IOException e) {
      throw new IllegalStateException(
          "no target/ in " + moduleDir + ": the Lambda runtime tier runs after mvn package", e);
    }
  }
}
