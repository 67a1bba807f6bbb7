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
 * A real, throwaway Kubernetes control plane on loopback: etcd → kube-apiserver →
 * kube-controller-manager → kube-scheduler → kwok, started from the binaries of {@link K8sBinaries}
 * with certificates made for this run ({@link Pki}) and free ports picked at start.
 *
 * <p>The controller-manager runs the controllers a drain depends on: disruption (PDB status, which
 * the eviction subresource reads), replicaset/deployment/statefulset (replacement pods), garbage
 * collection and namespace deletion. The scheduler places pods on kwok's fake nodes; kwok marks
 * pods on its nodes Running and Ready and finishes deleting pods once they are marked for deletion
 * (what a kubelet does). Nodes are kwok's when they carry {@link KwokNodes#MANAGED_ANNOTATION}.
 *
 * <p>{@link #close()} stops every process (SIGTERM, then SIGKILL after 10 s) in reverse order and
 * deletes the working directory. A shutdown hook does the same if the JVM exits first, and a
 * watchdog process kills the recorded pids if the JVM dies without running it.
 */
public final class RealCluster implements AutoCloseable {
  public static final String KEEP_PROPERTY = "gpufleet.k8s.keep";
  static final Duration START_TIMEOUT = Duration.ofSeconds(180);
  static final Duration POLL = Duration.ofMillis(100);
  private static final int START_ATTEMPTS = 3;
  private static final String ADMIN = "gpufleet-admin";

  private final Path workDir;
  private final Pki pki;
  private final String url;
  private final String token;
  private final Path kubeconfig;
  private final List<ManagedProcess> processes;
  private final ManagedProcess watchdog;
  private final Thread hook;
  private final Map<FunctionIdentity, String> identityTokens;
  private final List<KubernetesClient> clients = new CopyOnWriteArrayList<>();
  private final Map<FunctionIdentity, KubernetesClient> identityClients =
      new java.util.concurrent.ConcurrentHashMap<>();
  private volatile KubernetesClient shared;
  private volatile FunctionIdentity defaultIdentity;
  private volatile boolean closed;

  private RealCluster(
      Path workDir,
      Pki pki,
      String url,
      String token,
      Map<FunctionIdentity, String> identityTokens,
      Path kubeconfig,
      List<ManagedProcess> processes,
      ManagedProcess watchdog,
      Thread hook) {
    this.workDir = workDir;
    this.pki = pki;
    this.url = url;
    this.token = token;
    this.identityTokens = identityTokens;
    this.kubeconfig = kubeconfig;
    this.processes = processes;
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

  /** A kubeconfig (admin client certificate in system:masters) for kubectl and other tools. */
  public Path kubeconfig() {
    return kubeconfig;
  }

  /** The CA certificate as base64 PEM, as {@code KUBE_CA_DATA} and kubeconfig files carry it. */
  public String caData() {
    return Pki.base64(pki.caCert());
  }

  /** A bearer token in system:masters, as {@code KUBE_TOKEN} carries it. */
  public String token() {
    return token;
  }

  /** Where the certificates, etcd's data and every component's log are. */
  public Path workDir() {
    return workDir;
  }

  /** The log file of one component (etcd, kube-apiserver, ..., kwok). */
  public Path log(String component) {
    return workDir.resolve(component + ".log");
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

  /**
   * Admission policies take effect when the API server's informers deliver them, a moment after
   * they are stored. A canary policy and binding, created after all the others, refuse a ConfigMap
   * named {@value #CANARY}; once a dry-run create of it is refused, the informers (which deliver in
   * order) have delivered every policy and binding created before it. Then the canary goes.
   */
  private void awaitAdmissionInForce() {
    String policy =
        """
        {"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy",
         "metadata":{"name":"%1$s"},
         "spec":{"failurePolicy":"Fail","matchConstraints":{"resourceRules":[{"apiGroups":[""],
           "apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},
          "validations":[{"expression":"object.metadata.name != '%1$s'"}]}}
        """
            .formatted(CANARY);
    String binding =
        """
        {"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding",
         "metadata":{"name":"%1$s"},"spec":{"policyName":"%1$s","validationActions":["Deny"]}}
        """
            .formatted(CANARY);
    var json = admin().getKubernetesSerialization();
    admin()
        .genericKubernetesResources(VAP)
        .resource(
            json.unmarshal(policy, io.fabric8.kubernetes.api.model.GenericKubernetesResource.class))
        .forceConflicts()
        .serverSideApply();
    awaitTypeChecked(CANARY);
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
            .withName(CANARY)
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
    admin().genericKubernetesResources(VAP_BINDING).withName(CANARY).delete();
    admin().genericKubernetesResources(VAP).withName(CANARY).delete();
  }

  /**
   * The custom resources the functions use, from our own reduced CRDs on the classpath ({@code
   * /crds/nodepool.yaml}: karpenter.sh/v1 NodePool; {@code /crds/scaledobject.yaml}: keda.sh
   * ScaledObject): not Karpenter's or KEDA's, but the same group/version/kind/scope and a
   * structural schema of the fields the functions read and write.
   */
  public static final List<String> CRDS = List.of("/crds/nodepool.yaml", "/crds/scaledobject.yaml");

  /** Installs {@link #CRDS} (server-side apply, idempotent) and waits until they are served. */
  public void installCrds() {
    for (String resource : CRDS) {
      io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition crd;
      try (var in = RealCluster.class.getResourceAsStream(resource)) {
        if (in == null) {
          throw new IllegalStateException("no " + resource + " on the classpath");
        }
        crd = admin().apiextensions().v1().customResourceDefinitions().load(in).item();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + resource, e);
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
    return !closed && processes.stream().allMatch(ManagedProcess::isAlive);
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
    stopAll(processes, watchdog);
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook is this call or runs next; both stop the same idempotent way
    }
    if (!Boolean.getBoolean(KEEP_PROPERTY)) {
      deleteTree(workDir);
    }
  }

  // ------------------------------------------------------------------------------- audit

  static final String AUDIT_LOG = "audit.log";

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
    Path log = workDir.resolve(AUDIT_LOG);
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
    Path log = workDir.resolve(AUDIT_LOG);
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
    var processes = new ArrayList<ManagedProcess>();
    ManagedProcess watchdog = null;
    Thread hook = null;
    HttpClient http = null;
    try {
      Pki pki = Pki.create(workDir.resolve("pki"));
      Path pidFile = workDir.resolve("pids");
      Files.writeString(pidFile, "");
      watchdog = startWatchdog(workDir, pidFile);
      var started = processes;
      var dog = watchdog;
      hook =
          new Thread(
              () -> {
                stopAll(started, dog);
                if (!Boolean.getBoolean(KEEP_PROPERTY)) {
                  deleteTree(workDir);
                }
              },
              "gpufleet-k8s-stop");
      Runtime.getRuntime().addShutdownHook(hook);

      int[] ports = freePorts(6);
      int etcdPort = ports[0];
      int peerPort = ports[1];
      int apiPort = ports[2];
      int cmPort = ports[3];
      int schedulerPort = ports[4];
      int kwokPort = ports[5];
      String token = UUID.randomUUID().toString().replace("-", "");
      Path tokens = workDir.resolve("tokens.csv");
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
      Files.writeString(tokens, tokenLines);
      String url = "https://127.0.0.1:" + apiPort;
      Path auditPolicy = workDir.resolve("audit-policy.yaml");
      Files.writeString(auditPolicy, auditPolicy());
      Path kubeconfig = workDir.resolve("kubeconfig");
      Files.writeString(kubeconfig, kubeconfig(url, pki), StandardCharsets.UTF_8);
      var env = Map.of("HOME", workDir.toString());
      http = http(pki);
      Instant deadline = Instant.now().plus(START_TIMEOUT);

      String etcdUrl = "http://127.0.0.1:" + etcdPort;
      String peerUrl = "http://127.0.0.1:" + peerPort;
      var etcd =
          ManagedProcess.start(
              "etcd",
              List.of(
                  bin.etcd().toString(),
                  "--name=gpufleet",
                  "--data-dir=" + workDir.resolve("etcd"),
                  "--listen-client-urls=" + etcdUrl,
                  "--advertise-client-urls=" + etcdUrl,
                  "--listen-peer-urls=" + peerUrl,
                  "--initial-advertise-peer-urls=" + peerUrl,
                  "--initial-cluster=gpufleet=" + peerUrl,
                  "--unsafe-no-fsync=true",
                  "--log-level=warn"),
              workDir,
              env,
              pidFile);
      processes.add(etcd);
      awaitHealthy(http, etcd, URI.create(etcdUrl + "/health"), deadline);

      var apiServer =
          ManagedProcess.start(
              "kube-apiserver",
              List.of(
                  bin.apiServer().toString(),
                  "--etcd-servers=" + etcdUrl,
                  "--bind-address=127.0.0.1",
                  "--advertise-address=127.0.0.1",
                  "--secure-port=" + apiPort,
                  "--cert-dir=" + workDir.resolve("apiserver-certs"),
                  "--tls-cert-file=" + pki.servingCert(),
                  "--tls-private-key-file=" + pki.servingKey(),
                  "--client-ca-file=" + pki.caCert(),
                  "--token-auth-file=" + tokens,
                  "--authorization-mode=RBAC",
                  "--service-account-issuer=https://kubernetes.default.svc",
                  "--service-account-key-file=" + pki.serviceAccountPublicKey(),
                  "--service-account-signing-key-file=" + pki.serviceAccountKey(),
                  "--service-cluster-ip-range=10.96.0.0/16",
                  // No kubelets mint service account tokens here, and a pod created before the
                  // namespace's default service account exists would be refused. New nodes would
                  // get a not-ready NoSchedule taint that only the node lifecycle controller
                  // removes; that controller is not run (it would taint kwok nodes whose
                  // heartbeats lag on a busy machine), so that admission plugin is off too.
                  "--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
                  "--endpoint-reconciler-type=none",
                  "--audit-policy-file=" + auditPolicy,
                  "--audit-log-path=" + workDir.resolve(AUDIT_LOG),
                  "--audit-log-mode=blocking",
                  "--audit-log-format=json",
                  "--allow-privileged=true",
                  "--profiling=false"),
              workDir,
              env,
              pidFile);
      processes.add(apiServer);
      awaitHealthy(http, apiServer, URI.create(url + "/readyz"), deadline);

      String serving = "--tls-cert-file=" + pki.servingCert();
      String servingKey = "--tls-private-key-file=" + pki.servingKey();
      var controllerManager =
          ManagedProcess.start(
              "kube-controller-manager",
              List.of(
                  bin.controllerManager().toString(),
                  "--kubeconfig=" + kubeconfig,
                  "--bind-address=127.0.0.1",
                  "--secure-port=" + cmPort,
                  serving,
                  servingKey,
                  "--leader-elect=false",
                  "--controllers=" + String.join(",", CONTROLLERS),
                  "--root-ca-file=" + pki.caCert(),
                  "--service-account-private-key-file=" + pki.serviceAccountKey(),
                  "--use-service-account-credentials=false",
                  "--profiling=false"),
              workDir,
              env,
              pidFile);
      processes.add(controllerManager);
      var scheduler =
          ManagedProcess.start(
              "kube-scheduler",
              List.of(
                  bin.scheduler().toString(),
                  "--kubeconfig=" + kubeconfig,
                  "--bind-address=127.0.0.1",
                  "--secure-port=" + schedulerPort,
                  serving,
                  servingKey,
                  "--leader-elect=false",
                  "--profiling=false"),
              workDir,
              env,
              pidFile);
      processes.add(scheduler);
      var kwok =
          ManagedProcess.start(
              "kwok",
              List.of(
                  bin.kwok().toString(),
                  "--kubeconfig=" + kubeconfig,
                  "--config=" + bin.kwokStages(),
                  "--node-lease-duration-seconds=40",
                  "--manage-all-nodes=false",
                  "--manage-nodes-with-annotation-selector="
                      + KwokNodes.MANAGED_ANNOTATION
                      + "="
                      + KwokNodes.MANAGED_VALUE,
                  "--server-address=127.0.0.1:" + kwokPort,
                  "--cidr=10.0.0.1/16",
                  "--node-ip=127.0.0.1"),
              workDir,
              env,
              pidFile);
      processes.add(kwok);
      awaitHealthy(
          http,
          controllerManager,
          URI.create("https://127.0.0.1:" + cmPort + "/healthz"),
          deadline);
      awaitHealthy(
          http, scheduler, URI.create("https://127.0.0.1:" + schedulerPort + "/healthz"), deadline);
      awaitHealthy(http, kwok, URI.create("http://127.0.0.1:" + kwokPort + "/healthz"), deadline);
      return new RealCluster(
          workDir,
          pki,
          url,
          token,
          Map.copyOf(identityTokens),
          kubeconfig,
          processes,
          watchdog,
          hook);
    } catch (IOException e) {
      stopAfterFailure(processes, watchdog, hook);
      throw new UncheckedIOException("cannot start the test cluster in " + workDir, e);
    } catch (RuntimeException e) {
      stopAfterFailure(processes, watchdog, hook);
      if (e instanceof PortTaken) {
        deleteTree(workDir);
      }
      throw e;
    } finally {
      if (http != null) {
        http.close();
      }
    }
  }

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

  private static void stopAfterFailure(
      List<ManagedProcess> processes, ManagedProcess watchdog, Thread hook) {
    stopAll(processes, watchdog);
    if (hook != null) {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // already running
      }
    }
  }

  private static void stopAll(List<ManagedProcess> processes, ManagedProcess watchdog) {
    if (watchdog != null) {
      watchdog.stop();
    }
    var reversed = new ArrayList<>(processes);
    java.util.Collections.reverse(reversed);
    reversed.forEach(ManagedProcess::stop);
  }

  /**
   * A shell that outlives a JVM killed without running its shutdown hooks (SIGKILL, crash) and then
   * kills every pid recorded in the pid file and deletes the directory (unless kept); stopped first
   * on a normal stop.
   */
  private static ManagedProcess startWatchdog(Path workDir, Path pidFile) throws IOException {
    Path noPids = workDir.resolve("watchdog-pids");
    Files.writeString(noPids, "");
    return ManagedProcess.start(
        "watchdog",
        List.of(
            "/bin/sh",
            "-c",
            "while kill -0 \"$1\" 2>/dev/null; do sleep 1; done;"
                + " for p in $(cat \"$2\"); do kill -9 \"$p\" 2>/dev/null; done;"
                + " if [ -n \"$3\" ]; then sleep 1; rm -rf \"$3\"; fi",
            "gpufleet-k8s-watchdog",
            Long.toString(ProcessHandle.current().pid()),
            pidFile.toString(),
            Boolean.getBoolean(KEEP_PROPERTY) ? "" : workDir.toString()),
        workDir,
        Map.of(),
        noPids);
  }

  private static void awaitHealthy(
      HttpClient http, ManagedProcess process, URI probe, Instant deadline) {
    var request = HttpRequest.newBuilder(probe).timeout(Duration.ofSeconds(5)).GET().build();
    String last = "no answer yet";
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        String tail = process.tail(30);
        String message =
            process.name
                + " exited with code "
                + process.exitValue()
                + " before "
                + probe
                + " answered (log "
                + process.log
                + "):\n"
                + tail;
        throw tail.contains("address already in use")
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
      process.awaitExit(POLL);
    }
    throw new IllegalStateException(
        process.name
            + " did not become healthy at "
            + probe
            + " within "
            + START_TIMEOUT.toSeconds()
            + " s (last: "
            + last
            + "; log "
            + process.log
            + "):\n"
            + process.tail(30));
  }

  /** Trusts the cluster's CA only. */
  private static HttpClient http(Pki pki) {
    try {
      var certs = CertificateFactory.getInstance("X.509");
      var store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      try (var in = Files.newInputStream(pki.caCert())) {
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
      throw new IllegalStateException("cannot trust the test cluster's CA", e);
    }
  }

  private static String kubeconfig(String url, Pki pki) {
    return """
        apiVersion: v1
        kind: Config
        clusters:
        - name: gpufleet-test
          cluster:
            server: %s
            certificate-authority-data: %s
        users:
        - name: %s
          user:
            client-certificate-data: %s
            client-key-data: %s
        contexts:
        - name: gpufleet-test
          context:
            cluster: gpufleet-test
            user: %s
            namespace: default
        current-context: gpufleet-test
        """
        .formatted(
            url,
            Pki.base64(pki.caCert()),
            ADMIN,
            Pki.base64(pki.adminCert()),
            Pki.base64(pki.adminKey()),
            ADMIN);
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
