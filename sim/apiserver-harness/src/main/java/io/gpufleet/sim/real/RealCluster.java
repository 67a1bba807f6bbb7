package io.gpufleet.sim.real;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.k8s.KubeClients;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A real, throwaway Kubernetes control plane on loopback, run by {@code kwokctl create cluster
 * --runtime binary} ({@link Kwokctl}) from the binaries of {@link K8sBinaries}: etcd →
 * kube-apiserver (RBAC and admission on, our audit policy) → kube-controller-manager →
 * kube-scheduler → kwok. kwokctl makes the PKI; every port is picked here and given to it.
 *
 * <p>The controller-manager runs the controllers a drain depends on: disruption (PDB status, which
 * the eviction subresource reads), replicaset/deployment/statefulset (replacement pods), garbage
 * collection and namespace deletion. The scheduler places pods on kwok's fake nodes; kwok marks
 * pods on its nodes Running and Ready and finishes deleting pods once they are marked for deletion
 * (what a kubelet does), with the stages of {@link K8sBinaries#kwokStages()}. Nodes are kwok's when
 * they carry {@link KwokNodes#MANAGED_ANNOTATION}.
 *
 * <p>Clients authenticate with bearer tokens from a static token file given to the API server: one
 * in {@code system:masters} for {@link #admin()}, one per {@link FunctionIdentity} with its user
 * and groups. {@link #kubeconfig()} is kwokctl's (its admin client certificate).
 *
 * <p>{@link #close()} runs {@code kwokctl delete cluster}, waits until its processes are gone and
 * deletes the working directory. A shutdown hook does the same if the JVM exits first, and a
 * watchdog process runs the delete if the JVM dies without running it.
 */
public final class RealCluster implements AutoCloseable {
  public static final String KEEP_PROPERTY = "gpufleet.k8s.keep";
  static final Duration START_TIMEOUT = Duration.ofSeconds(180);
  static final Duration POLL = Duration.ofMillis(100);
  private static final int START_ATTEMPTS = 3;
  private static final String ADMIN = "gpufleet-admin";
  private static final java.util.concurrent.atomic.AtomicInteger STARTED =
      new java.util.concurrent.atomic.AtomicInteger();

  private final Kwokctl kwokctl;
  private final String url;
  private final String token;
  private final Map<String, Long> pids;
  private final Process watchdog;
  private final Thread hook;
  private final Map<FunctionIdentity, String> identityTokens;
  private final List<KubernetesClient> clients = new CopyOnWriteArrayList<>();
  private final Map<FunctionIdentity, KubernetesClient> identityClients =
      new java.util.concurrent.ConcurrentHashMap<>();
  private volatile KubernetesClient shared;
  private volatile FunctionIdentity defaultIdentity;
  private volatile boolean closed;

  private RealCluster(
      Kwokctl kwokctl,
      String url,
      String token,
      Map<FunctionIdentity, String> identityTokens,
      Map<String, Long> pids,
      Process watchdog,
      Thread hook) {
    this.kwokctl = kwokctl;
    this.url = url;
    this.token = token;
    this.identityTokens = identityTokens;
    this.pids = pids;
    this.watchdog = watchdog;
    this.hook = hook;
  }

  /** Starts a cluster and returns once every component answers its health check. */
  public static RealCluster start(K8sBinaries binaries) {
    IllegalStateException last = null;
    for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      try {
        return startOnce(binaries);
      } catch (PortTaken e) {
        // another process took a port between our probe and the component's bind: new ports
        last = e;
      }
    }
    throw last;
  }

  /** The API server's URL (https://127.0.0.1:PORT). */
  public String url() {
    return url;
  }

  /** kwokctl's kubeconfig (admin client certificate in system:masters) for kubectl and tools. */
  public Path kubeconfig() {
    return kwokctl.kubeconfig();
  }

  /** The CA certificate as base64 PEM, as {@code KUBE_CA_DATA} and kubeconfig files carry it. */
  public String caData() {
    try {
      return java.util.Base64.getEncoder().encodeToString(Files.readAllBytes(kwokctl.caCert()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the cluster's CA " + kwokctl.caCert(), e);
    }
  }

  /** A bearer token in system:masters, as {@code KUBE_TOKEN} carries it. */
  public String token() {
    return token;
  }

  /**
   * kwokctl's working directory: the cluster (named {@code gpufleet-<pid>-<n>}, its PKI, etcd data
   * and logs) is under {@code clusters/}.
   */
  public Path workDir() {
    return kwokctl.workDir;
  }

  /** The log file of one component (etcd, kube-apiserver, ..., kwok-controller). */
  public Path log(String component) {
    return kwokctl.log(component);
  }

  /** The pid of every component, by kwokctl's component name (as started). */
  public Map<String, Long> pids() {
    return pids;
  }

  /**
   * The client a function under test uses: the {@linkplain #defaultIdentity() default identity}'s
   * when one is set (so its requests are authorised by the RBAC and admission policies of {@code
   * deploy/}), else {@link #admin()}.
   */
  public KubernetesClient client() {
    FunctionIdentity identity = defaultIdentity;
    return identity == null ? admin() : clientAs(identity);
  }

  /**
   * A client the cluster owns (closed with it) in {@code system:masters}, for a test's setup and
   * checks, built the way the functions build theirs: {@link KubeClients#forUrl} with the CA and a
   * bearer token, as KUBE_API_URL/KUBE_CA_DATA/KUBE_TOKEN configure the Lambda.
   */
  public KubernetesClient admin() {
    var c = shared;
    if (c == null) {
      synchronized (this) {
        if (shared == null) {
          shared = newClient();
        }
        c = shared;
      }
    }
    return c;
  }

  /** The shared client of {@code identity} (its bearer token; closed with the cluster). */
  public KubernetesClient clientAs(FunctionIdentity identity) {
    return identityClients.computeIfAbsent(identity, this::newClientAs);
  }

  /** A new client authenticated as {@code identity}; the cluster closes it too. */
  public KubernetesClient newClientAs(FunctionIdentity identity) {
    if (closed) {
      throw new IllegalStateException("the test cluster is stopped");
    }
    String bearer = identityTokens.get(identity);
    var c = KubeClients.forUrl(url, Optional.of(caData()), () -> bearer);
    clients.add(c);
    return c;
  }

  /** The bearer token of {@code identity}, as {@code KUBE_TOKEN} would carry it. */
  public String tokenOf(FunctionIdentity identity) {
    return identityTokens.get(identity);
  }

  /** The identity {@link #client()} authenticates as, or null for admin. */
  public FunctionIdentity defaultIdentity() {
    return defaultIdentity;
  }

  /** Makes {@link #client()} authenticate as {@code identity} (null: admin). */
  public void defaultIdentity(FunctionIdentity identity) {
    this.defaultIdentity = identity;
  }

  /**
   * Creates or updates every object of the YAML manifests (RBAC, admission policies) as admin, with
   * server-side apply, and waits until the admission policies among them are in force.
   */
  public void applyManifests(List<Path> files) {
    var policies = new ArrayList<String>();
    for (Path file : files) {
      try (var in = Files.newInputStream(file)) {
        for (var item : admin().load(in).items()) {
          admin().resource(item).forceConflicts().serverSideApply();
          if ("ValidatingAdmissionPolicy".equals(item.getKind())) {
            policies.add(item.getMetadata().getName());
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read manifest " + file, e);
      } catch (RuntimeException e) {
        throw new IllegalStateException("cannot apply manifest " + file + ": " + e.getMessage(), e);
      }
    }
    for (String policy : policies) {
      awaitTypeChecked(policy);
    }
    if (!policies.isEmpty()) {
      awaitAdmissionInForce();
    }
  }

  private static final io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext VAP_BINDING =
      new io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext.Builder()
          .withGroup("admissionregistration.k8s.io")
          .withVersion("v1")
          .withKind("ValidatingAdmissionPolicyBinding")
          .withPlural("validatingadmissionpolicybindings")
          .withNamespaced(false)
          .build();

  static final String CANARY = "gpufleet-admission-canary";

  private static final java.util.concurrent.atomic.AtomicInteger CANARIES =
      new java.util.concurrent.atomic.AtomicInteger();

  /**
   * Admission policies take effect when the API server's informers deliver them, a moment after
   * they are stored. A canary policy and binding, created after all the others, refuse a ConfigMap
   * named {@value #CANARY}; once a dry-run create of it is refused, the informers (which deliver in
   * order) have delivered every policy and binding created before it. Then the canary goes. Each
   * wait has a canary of its own name: a refusal by the previous wait's canary, deleted but maybe
   * not yet delivered as deleted, would otherwise end the wait before the new policies are in
   * force.
   */
  private void awaitAdmissionInForce() {
    String name = CANARY + "-" + ProcessHandle.current().pid() + "-" + CANARIES.incrementAndGet();
    String policy =
        """
        {"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy",
         "metadata":{"name":"%1$s"},
         "spec":{"failurePolicy":"Fail","matchConstraints":{"resourceRules":[{"apiGroups":[""],
           "apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},
          "validations":[{"expression":"object.metadata.name != '%1$s'"}]}}
        """
            .formatted(name);
    String binding =
        """
        {"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding",
         "metadata":{"name":"%1$s"},"spec":{"policyName":"%1$s","validationActions":["Deny"]}}
        """
            .formatted(name);
    var json = admin().getKubernetesSerialization();
    admin()
        .genericKubernetesResources(VAP)
        .resource(
            json.unmarshal(policy, io.fabric8.kubernetes.api.model.GenericKubernetesResource.class))
        .forceConflicts()
        .serverSideApply();
    awaitTypeChecked(name);
    admin()
        .genericKubernetesResources(VAP_BINDING)
        .resource(
            json.unmarshal(
                binding, io.fabric8.kubernetes.api.model.GenericKubernetesResource.class))
        .forceConflicts()
        .serverSideApply();
    var canary =
        new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace("default")
            .endMetadata()
            .build();
    await(
        "admission policies in force (canary refused)",
        Duration.ofSeconds(60),
        () -> {
          try {
            admin().configMaps().inNamespace("default").resource(canary).dryRun().create();
            return false;
          } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
            if (e.getCode() == 422 || e.getCode() == 400 || e.getCode() == 403) {
              return true;
            }
            throw e;
          }
        });
    admin().genericKubernetesResources(VAP_BINDING).withName(name).delete();
    admin().genericKubernetesResources(VAP).withName(name).delete();
  }

  /**
   * Installs Karpenter's and KEDA's published CRDs ({@link PublishedCrds}: NodePool, NodeClaim,
   * ScaledObject, pinned, from their Go modules; server-side apply, idempotent) and waits until
   * they are served.
   */
  public void installCrds() {
    for (Path file : PublishedCrds.locate().files()) {
      io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition crd;
      try (var in = Files.newInputStream(file)) {
        crd = admin().apiextensions().v1().customResourceDefinitions().load(in).item();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + file, e);
      }
      admin()
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .resource(crd)
          .forceConflicts()
          .serverSideApply();
      String name = crd.getMetadata().getName();
      var version = crd.getSpec().getVersions().get(0);
      var ctx =
          new io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext.Builder()
              .withGroup(crd.getSpec().getGroup())
              .withVersion(version.getName())
              .withKind(crd.getSpec().getNames().getKind())
              .withPlural(crd.getSpec().getNames().getPlural())
              .withNamespaced("Namespaced".equals(crd.getSpec().getScope()))
              .build();
      await(
          "CRD " + name + " Established and served",
          Duration.ofSeconds(60),
          () -> {
            var c = admin().apiextensions().v1().customResourceDefinitions().withName(name).get();
            boolean established =
                c != null
                    && c.getStatus() != null
                    && c.getStatus().getConditions() != null
                    && c.getStatus().getConditions().stream()
                        .anyMatch(
                            k -> "Established".equals(k.getType()) && "True".equals(k.getStatus()));
            if (!established) {
              return false;
            }
            try {
              if (ctx.isNamespaceScoped()) {
                admin().genericKubernetesResources(ctx).inAnyNamespace().list();
              } else {
                admin().genericKubernetesResources(ctx).list();
              }
              return true;
            } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
              return false;
            }
          });
    }
  }

  private static final io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext VAP =
      new io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext.Builder()
          .withGroup("admissionregistration.k8s.io")
          .withVersion("v1")
          .withKind("ValidatingAdmissionPolicy")
          .withPlural("validatingadmissionpolicies")
          .withNamespaced(false)
          .build();

  /**
   * Waits until the API server has type-checked the policy's CEL against the schemas of what it
   * matches (status.observedGeneration) and fails on any type-checking warning: a misspelt field
   * would otherwise only show when a request is refused for it.
   */
  private void awaitTypeChecked(String policy) {
    var found =
        new java.util.concurrent.atomic.AtomicReference<com.fasterxml.jackson.databind.JsonNode>();
    await(
        "ValidatingAdmissionPolicy " + policy + " type-checked",
        Duration.ofSeconds(60),
        () -> {
          var vap = admin().genericKubernetesResources(VAP).withName(policy).get();
          var tree = io.gpufleet.core.json.Json.MAPPER.valueToTree(vap);
          found.set(tree);
          return tree.path("status").path("observedGeneration").asLong(-1)
              == tree.path("metadata").path("generation").asLong(-2);
        });
    var warnings = found.get().path("status").path("typeChecking").path("expressionWarnings");
    if (warnings.size() > 0) {
      throw new IllegalStateException(
          "ValidatingAdmissionPolicy " + policy + " has type-checking warnings: " + warnings);
    }
  }

  /**
   * A new admin client like {@link #admin()}; the cluster closes it too, callers may close it
   * first.
   */
  public KubernetesClient newClient() {
    if (closed) {
      throw new IllegalStateException("the test cluster is stopped");
    }
    var c = KubeClients.forUrl(url, Optional.of(caData()), () -> token);
    clients.add(c);
    return c;
  }

  /** Whether every component is still running (a dead one fails the next request anyway). */
  public boolean healthy() {
    return !closed
        && pids.values().stream()
            .allMatch(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
  }

  /** Stops everything; idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    clients.forEach(
        c -> {
          try {
            c.close();
          } catch (RuntimeException ignored) {
            // stopping anyway
          }
        });
    stop(kwokctl, watchdog);
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook is this call or runs next; both stop the same idempotent way
    }
  }

  /**
   * kwokctl deletes the cluster (or only stops it when {@value #KEEP_PROPERTY} is set, leaving its
   * files for a look), then the working directory goes.
   */
  private static void stop(Kwokctl kwokctl, Process watchdog) {
    if (watchdog != null) {
      watchdog.destroy();
    }
    if (Boolean.getBoolean(KEEP_PROPERTY)) {
      kwokctl.stop();
    } else {
      try {
        kwokctl.delete();
      } finally {
        deleteTree(kwokctl.workDir);
      }
    }
  }

  // ------------------------------------------------------------------------------- audit

  /**
   * The API server records, at Metadata level (who, verb, resource, subresource, namespace, name,
   * answer), every request of the functions' identities ({@link FunctionIdentity}) and every
   * eviction request; nothing of the controllers, scheduler, kwok or test setup, whose heartbeats
   * would drown it.
   */
  static String auditPolicy() {
    return """
        apiVersion: audit.k8s.io/v1
        kind: Policy
        omitStages: ["RequestReceived", "ResponseStarted"]
        rules:
        - level: Metadata
          userGroups: [%s]
        - level: Metadata
          resources:
          - group: ""
            resources: ["pods/eviction"]
        - level: None
        """
        .formatted(
            String.join(
                ", ", FunctionIdentity.allGroups().stream().map(g -> "\"" + g + "\"").toList()));
  }

  /** One request of the audit log: who asked what, and the answer. */
  public record AuditEvent(
      String user,
      List<String> groups,
      String verb,
      String apiGroup,
      String resource,
      String subresource,
      String namespace,
      String name,
      int code,
      String message,
      String uri,
      Instant at) {
    /** {@code resource} or {@code resource/subresource}, as RBAC rules name it. */
    public String rbacResource() {
      return subresource.isEmpty() ? resource : resource + "/" + subresource;
    }
  }

  /** Every completed request the API server has audited so far, oldest first. */
  public List<AuditEvent> auditEvents() {
    Path log = kwokctl.auditLog();
    var out = new ArrayList<AuditEvent>();
    try {
      if (!Files.exists(log)) {
        return out;
      }
      for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
        if (line.isBlank()) {
          continue;
        }
        var event = io.gpufleet.core.json.Json.MAPPER.readTree(line);
        if (!"ResponseComplete".equals(event.path("stage").asText())
            && !"Panic".equals(event.path("stage").asText())) {
          continue;
        }
        var ref = event.path("objectRef");
        var groups = new ArrayList<String>();
        event.path("user").path("groups").forEach(g -> groups.add(g.asText()));
        out.add(
            new AuditEvent(
                event.path("user").path("username").asText(),
                List.copyOf(groups),
                event.path("verb").asText(),
                ref.path("apiGroup").asText(""),
                ref.path("resource").asText(""),
                ref.path("subresource").asText(""),
                ref.path("namespace").asText(""),
                ref.path("name").asText(""),
                event.path("responseStatus").path("code").asInt(),
                event.path("responseStatus").path("message").asText(""),
                event.path("requestURI").asText(""),
                Instant.parse(event.path("stageTimestamp").asText())));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the API server's audit log " + log, e);
    }
    out.sort(Comparator.comparing(AuditEvent::at));
    return out;
  }

  /** One answered eviction request, from the API server's audit log. */
  public record Eviction(String namespace, String pod, int code, String message, Instant at) {}

  /**
   * The eviction requests the API server has answered for pods of {@code namespace}, oldest first:
   * what a drain really sent and was told (201, 429, 500, ...). The API server writes each entry
   * synchronously (blocking mode) while it completes the request.
   */
  public List<Eviction> evictions(String namespace) {
    Path log = kwokctl.auditLog();
    var out = new ArrayList<Eviction>();
    try {
      if (!Files.exists(log)) {
        return out;
      }
      for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
        if (line.isBlank()) {
          continue;
        }
        var event = io.gpufleet.core.json.Json.MAPPER.readTree(line);
        var ref = event.path("objectRef");
        if (!"eviction".equals(ref.path("subresource").asText())
            || !namespace.equals(ref.path("namespace").asText())
            || !"ResponseComplete".equals(event.path("stage").asText())) {
          continue;
        }
        var status = event.path("responseStatus");
        out.add(
            new Eviction(
                namespace,
                ref.path("name").asText(),
                status.path("code").asInt(),
                status.path("message").asText(""),
                Instant.parse(event.path("stageTimestamp").asText())));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the API server's audit log " + log, e);
    }
    out.sort(Comparator.comparing(Eviction::at));
    return out;
  }

  // ------------------------------------------------------------------------------- start

  private static final class PortTaken extends IllegalStateException {
    PortTaken(String message) {
      super(message);
    }
  }

  private static RealCluster startOnce(K8sBinaries bin) {
    Path workDir;
    try {
      workDir = Files.createTempDirectory("gpufleet-k8s-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the test cluster's directory", e);
    }
    var kwokctl =
        new Kwokctl(
            bin,
            workDir,
            "gpufleet-" + ProcessHandle.current().pid() + "-" + STARTED.incrementAndGet());
    Process watchdog = null;
    Thread hook = null;
    try {
      watchdog = kwokctl.watchdog(Boolean.getBoolean(KEEP_PROPERTY));
      var dog = watchdog;
      hook = new Thread(() -> stop(kwokctl, dog), "gpufleet-k8s-stop");
      Runtime.getRuntime().addShutdownHook(hook);

      int[] ports = freePorts(6);
      int apiPort = ports[0];
      String token = UUID.randomUUID().toString().replace("-", "");
      var identityTokens = new java.util.EnumMap<FunctionIdentity, String>(FunctionIdentity.class);
      var tokenLines =
          new StringBuilder(token + "," + ADMIN + "," + ADMIN + ",\"system:masters\"\n");
      for (FunctionIdentity identity : FunctionIdentity.values()) {
        String t = UUID.randomUUID().toString().replace("-", "");
        identityTokens.put(identity, t);
        tokenLines
            .append(t)
            .append(',')
            .append(identity.username())
            .append(',')
            .append(identity.name().toLowerCase(java.util.Locale.ROOT))
            .append(",\"")
            .append(String.join(",", identity.groups()))
            .append("\"\n");
      }
      Path tokens = workDir.resolve("tokens.csv");
      Files.writeString(tokens, tokenLines);
      Path auditPolicy = workDir.resolve("audit-policy.yaml");
      Files.writeString(auditPolicy, auditPolicy());
      Path config = workDir.resolve("kwokctl.yaml");
      Files.writeString(config, kwokctlConfig(kwokctl, ports, tokens));
      kwokctl.create(config, auditPolicy, START_TIMEOUT);

      var pids = kwokctl.pids();
      if (!pids.keySet().containsAll(COMPONENTS)) {
        throw new IllegalStateException(
            "kwokctl started "
                + pids.keySet()
                + ", not "
                + COMPONENTS
                + Kwokctl.tail(workDir.resolve("kwokctl.log")));
      }
      String url = "https://127.0.0.1:" + apiPort;
      Instant deadline = Instant.now().plus(START_TIMEOUT);
      var probes = new java.util.LinkedHashMap<String, URI>();
      probes.put("kube-apiserver", URI.create(url + "/readyz"));
      probes.put(
          "kube-controller-manager", URI.create("https://127.0.0.1:" + ports[1] + "/healthz"));
      probes.put("kube-scheduler", URI.create("https://127.0.0.1:" + ports[2] + "/healthz"));
      probes.put("kwok-controller", URI.create("http://127.0.0.1:" + ports[3] + "/healthz"));
      try (var http = http(kwokctl.caCert())) {
        // the API server's readiness needs the admin token; the others allow /healthz to anyone
        probes.forEach(
            (component, probe) ->
                awaitHealthy(
                    http,
                    kwokctl,
                    pids,
                    component,
                    probe,
                    component.equals("kube-apiserver") ? token : null,
                    deadline));
      }
      return new RealCluster(
          kwokctl, url, token, Map.copyOf(identityTokens), Map.copyOf(pids), watchdog, hook);
    } catch (IOException e) {
      stopAfterFailure(kwokctl, watchdog, hook, false);
      throw new UncheckedIOException("cannot start the test cluster in " + workDir, e);
    } catch (RuntimeException e) {
      stopAfterFailure(kwokctl, watchdog, hook, e instanceof PortTaken);
      throw e;
    }
  }

  /** The components kwokctl runs, by its names (their logs are {@code logs/<name>.log}). */
  public static final List<String> COMPONENTS =
      List.of(
          "etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok-controller");

  /**
   * The controllers the functions and their tests depend on (kube-controller-manager names; the
   * default set would also run node lifecycle, endpoints, certificates and more that nothing here
   * needs).
   */
  static final List<String> CONTROLLERS =
      List.of(
          "disruption-controller",
          "replicaset-controller",
          "deployment-controller",
          "statefulset-controller",
          "garbage-collector-controller",
          "namespace-controller",
          "pod-garbage-collector-controller",
          // type-checks admission policies' CEL and reports it in their status
          "validatingadmissionpolicy-status-controller");

  /**
   * kwokctl's configuration: loopback only, the ports picked here ({@code ports}: API server,
   * controller-manager, scheduler, kwok, etcd client, etcd peer), and what kwokctl's defaults do
   * not cover as extra component arguments. (kwokctl v0.8.0's {@code --extra-args} flag panics when
   * two components get more than one argument each, so they are given here.)
   *
   * <p>kube-apiserver: the static tokens; no ServiceAccount admission (no kubelets mint tokens
   * here, and a pod created before its namespace's default service account exists would be refused)
   * and no TaintNodesByCondition (new nodes would get a not-ready NoSchedule taint that only the
   * node lifecycle controller removes; that controller is not run, as it would taint kwok nodes
   * whose heartbeats lag on a busy machine); the audit log written while each request completes.
   * Controller-manager and scheduler: no leader election, serving with kwokctl's certificate so the
   * health checks can trust its CA. kwok: only nodes annotated {@link
   * KwokNodes#MANAGED_ANNOTATION}, a /16 of pod IPs.
   */
  private static String kwokctlConfig(Kwokctl kwokctl, int[] ports, Path tokens) {
    String served =
        """
        - {key: leader-elect, value: "false"}
        - {key: tls-cert-file, value: "%s"}
        - {key: tls-private-key-file, value: "%s"}
        - {key: profiling, value: "false"}
        """
            .formatted(kwokctl.servingCert(), kwokctl.servingKey())
            .indent(2)
            .stripTrailing();
    return """
        apiVersion: config.kwok.x-k8s.io/v1alpha1
        kind: KwokctlConfiguration
        options:
          bindAddress: 127.0.0.1
          kubeApiserverPort: %d
          kubeControllerManagerPort: %d
          kubeSchedulerPort: %d
          kwokControllerPort: %d
          etcdPort: %d
          etcdPeerPort: %d
        componentsPatches:
        - name: kube-apiserver
          extraArgs:
          - {key: token-auth-file, value: "%s"}
          - {key: disable-admission-plugins, value: "ServiceAccount,TaintNodesByCondition"}
          - {key: audit-log-mode, value: blocking}
          - {key: audit-log-format, value: json}
          - {key: profiling, value: "false"}
        - name: kube-controller-manager
          extraArgs:
          - {key: controllers, value: "%s"}
        %s
        - name: kube-scheduler
          extraArgs:
        %s
        - name: kwok-controller
          extraArgs:
          - {key: manage-all-nodes, value: "false", override: true}
          - {key: manage-nodes-with-annotation-selector, value: "%s=%s"}
          - {key: node-ip, value: 127.0.0.1, override: true}
          - {key: cidr, value: 10.0.0.1/16}
        """
        .formatted(
            ports[0],
            ports[1],
            ports[2],
            ports[3],
            ports[4],
            ports[5],
            tokens,
            String.join(",", CONTROLLERS),
            served,
            served,
            KwokNodes.MANAGED_ANNOTATION,
            KwokNodes.MANAGED_VALUE);
  }

  /**
   * Stops what kwokctl started and keeps its directory (logs, audit log, kwokctl's output) for a
   * look, unless the start is tried again ({@code discard}: a port was taken).
   */
  private static void stopAfterFailure(
      Kwokctl kwokctl, Process watchdog, Thread hook, boolean discard) {
    if (watchdog != null) {
      watchdog.destroy();
    }
    try {
      if (discard) {
        kwokctl.delete();
        deleteTree(kwokctl.workDir);
      } else {
        kwokctl.stop();
      }
    } catch (RuntimeException e) {
      // the start failure is what to report
    }
    if (hook != null) {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // already running
      }
    }
  }

  /**
   * Polls {@code probe} until it answers 200 (with {@code bearer} when given); fails with the
   * component's log when its process has exited or the deadline passes.
   */
  private static void awaitHealthy(
      HttpClient http,
      Kwokctl kwokctl,
      Map<String, Long> pids,
      String component,
      URI probe,
      String bearer,
      Instant deadline) {
    var builder = HttpRequest.newBuilder(probe).timeout(Duration.ofSeconds(5)).GET();
    if (bearer != null) {
      builder.header("Authorization", "Bearer " + bearer);
    }
    var request = builder.build();
    Path log = kwokctl.log(component);
    String last = "no answer yet";
    while (Instant.now().isBefore(deadline)) {
      if (ProcessHandle.of(pids.get(component)).map(p -> !p.isAlive()).orElse(true)) {
        String message = component + " exited before " + probe + " answered" + Kwokctl.tail(log);
        throw message.contains("address already in use")
            ? new PortTaken(message)
            : new IllegalStateException(message);
      }
      try {
        var response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200) {
          return;
        }
        last = "HTTP " + response.statusCode() + ": " + response.body();
      } catch (ConnectException | HttpConnectTimeoutException notYet) {
        last = "not listening yet";
      } catch (IOException e) {
        last = e.toString();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while starting the test cluster", e);
      }
      ProcessHandle.of(pids.get(component)).ifPresent(p -> Kwokctl.awaitExit(p, POLL));
    }
    throw new IllegalStateException(
        component
            + " did not become healthy at "
            + probe
            + " within "
            + START_TIMEOUT.toSeconds()
            + " s (last: "
            + last
            + ")"
            + Kwokctl.tail(log));
  }

  /** Trusts the cluster's CA only. */
  private static HttpClient http(Path caCert) {
    try {
      var certs = CertificateFactory.getInstance("X.509");
      var store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      try (var in = Files.newInputStream(caCert)) {
        store.setCertificateEntry("ca", certs.generateCertificate(in));
      }
      var trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(store);
      var ssl = SSLContext.getInstance("TLS");
      ssl.init(null, trust.getTrustManagers(), null);
      return HttpClient.newBuilder()
          .sslContext(ssl)
          .connectTimeout(Duration.ofSeconds(2))
          .version(HttpClient.Version.HTTP_1_1)
          .build();
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot trust the test cluster's CA " + caCert, e);
    }
  }

  /** {@code n} distinct loopback ports that were free a moment ago (all held open at once). */
  static int[] freePorts(int n) {
    var sockets = new ArrayList<ServerSocket>();
    try {
      for (int i = 0; i < n; i++) {
        sockets.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
      }
      return sockets.stream().mapToInt(ServerSocket::getLocalPort).toArray();
    } catch (IOException e) {
      throw new UncheckedIOException("no free loopback ports", e);
    } finally {
      for (var socket : sockets) {
        try {
          socket.close();
        } catch (IOException ignored) {
          // closing a listening socket that never accepted
        }
      }
    }
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // a leftover temp directory is harmless
    }
  }

  // ------------------------------------------------------------------------------- waiting

  /**
   * Waits until the API server's RBAC authorizer lets {@code identity} do {@code verb} on {@code
   * resource} (group "" for the core group) in {@code namespace}. A RoleBinding just written
   * reaches the authorizer through its informer a moment later, so a test that binds and then acts
   * must wait for this (asked as admin with a SubjectAccessReview; the identity itself sends
   * nothing).
   */
  public void awaitAllowed(
      FunctionIdentity identity, String verb, String group, String resource, String namespace) {
    var review = new io.fabric8.kubernetes.api.model.GenericKubernetesResource();
    review.setApiVersion("authorization.k8s.io/v1");
    review.setKind("SubjectAccessReview");
    review.setAdditionalProperty(
        "spec",
        java.util.Map.of(
            "user",
            identity.username(),
            "groups",
            identity.groups(),
            "resourceAttributes",
            java.util.Map.of(
                "verb", verb, "group", group, "resource", resource, "namespace", namespace)));
    var context =
        new io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext.Builder()
            .withGroup("authorization.k8s.io")
            .withVersion("v1")
            .withKind("SubjectAccessReview")
            .withPlural("subjectaccessreviews")
            .withNamespaced(false)
            .build();
    await(
        identity.function() + " allowed to " + verb + " " + resource + " in " + namespace,
        Duration.ofSeconds(30),
        () -> {
          var answer = admin().genericKubernetesResources(context).resource(review).create();
          Object status = answer.getAdditionalProperties().get("status");
          return status instanceof java.util.Map<?, ?> m && Boolean.TRUE.equals(m.get("allowed"));
        });
  }

  /**
   * Polls {@code condition} every 100 ms until it holds; fails with {@code what} after {@code
   * timeout}. For waiting on what controllers do (there is no event to wait on for most of it).
   */
  public static void await(String what, Duration timeout, BooleanSupplier condition) {
    await(what, timeout, condition, () -> "");
  }

  /** The same; {@code state} describes what was seen last when it times out. */
  public static void await(
      String what,
      Duration timeout,
      BooleanSupplier condition,
      java.util.function.Supplier<String> state) {
    Instant deadline = Instant.now().plus(timeout);
    while (!condition.getAsBoolean()) {
      if (Instant.now().isAfter(deadline)) {
        String seen = state.get();
        throw new AssertionError(
            "timed out after "
                + timeout.toSeconds()
                + " s waiting for "
                + what
                + (seen.isEmpty() ? "" : "; last seen: " + seen));
      }
      try {
        Thread.sleep(POLL);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for " + what, e);
      }
    }
  }
}
