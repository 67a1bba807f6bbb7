package io.gpufleet.testkit.real;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.sim.real.FunctionIdentity;
import io.gpufleet.sim.real.K8sBinaries;
import io.gpufleet.sim.real.Manifests;
import io.gpufleet.sim.real.RealCluster;
import io.gpufleet.sim.real.RealNamespace;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The real API server tier for JUnit 5: one {@link RealCluster} per test JVM, started by the first
 * test class that uses it and stopped when the test run ends (JUnit's root store closes it; the
 * cluster's shutdown hook and watchdog cover a JVM that exits early). A failed start is remembered,
 * so later classes fail at once with the same reason instead of trying again. Nothing is skipped:
 * without the binaries the tests fail and say how to get them.
 *
 * <p>Annotate the class with {@link RealApiServerTest} (or
 * {@code @ExtendWith(RealApiServerExtension.class)}) and take parameters of these types in test,
 * lifecycle or constructor methods:
 *
 * <p>The cluster carries the RBAC and admission manifests of {@code deploy/rbac} and {@code
 * deploy/admission}. When the test classpath holds {@value #IDENTITY_RESOURCE} with {@code
 * identity=<function>} (each function module has one), the function's code under test talks to the
 * API server as that function's {@link FunctionIdentity}: {@link RealCluster#client()} and injected
 * {@link KubernetesClient} parameters authenticate as it, so every real-API test of the module runs
 * under the shipped permissions and shows up in the least-privilege report ({@link
 * LeastPrivilege}). Setup and checks go through {@link RealNamespace#client()} / {@link
 * RealCluster#admin()}.
 *
 * <ul>
 *   <li>{@link RealCluster}: the shared cluster ({@code client()}, {@code admin()}, {@code
 *       clientAs(identity)}, {@code url()}, {@code caData()}, {@code kubeconfig()});
 *   <li>{@link RealNamespace}: a fresh namespace for this test method (or class, when asked for in
 *       {@code @BeforeAll}) with helpers for kwok GPU nodes, ReplicaSets, Deployments and PDBs,
 *       deleted with its nodes afterwards;
 *   <li>{@link KubernetesClient}: the function's client ({@link RealCluster#client()}).
 * </ul>
 */
public final class RealApiServerExtension implements BeforeAllCallback, ParameterResolver {
  /** Classpath resource naming the function identity of a module's real-API tests. */
  public static final String IDENTITY_RESOURCE = "gpufleet-real-api.properties";

  private static final ExtensionContext.Namespace STORE =
      ExtensionContext.Namespace.create(RealApiServerExtension.class);

  /** Started at most once per JVM; holds the cluster or why it could not start. */
  static final class Shared implements AutoCloseable {
    private final RealCluster cluster;
    private final RuntimeException failure;

    Shared() {
      RealCluster started = null;
      RuntimeException failed = null;
      try {
        started = RealCluster.start(K8sBinaries.locate());
        started.installCrds();
        started.applyManifests(Manifests.all(Manifests.repoRoot()));
        started.defaultIdentity(configuredIdentity());
      } catch (RuntimeException e) {
        if (started != null) {
          started.close();
          started = null;
        }
        failed = e;
      }
      this.cluster = started;
      this.failure = failed;
    }

    RealCluster cluster() {
      if (failure != null) {
        throw new IllegalStateException(
            "the real API server tier could not start: " + failure.getMessage(), failure);
      }
      if (!cluster.healthy()) {
        throw new IllegalStateException(
            "a component of the real API server tier died; logs are in " + cluster.workDir());
      }
      return cluster;
    }

    @Override
    public void close() {
      if (cluster != null) {
        cluster.close();
      }
    }
  }

  /** The identity {@value #IDENTITY_RESOURCE} names on the test classpath, or null (admin). */
  static FunctionIdentity configuredIdentity() {
    var url = Thread.currentThread().getContextClassLoader().getResource(IDENTITY_RESOURCE);
    if (url == null) {
      return null;
    }
    var props = new java.util.Properties();
    try (var in = url.openStream()) {
      props.load(in);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot read " + url, e);
    }
    String name = props.getProperty("identity");
    if (name == null || name.isBlank()) {
      throw new IllegalStateException(url + " names no identity=<function>");
    }
    return FunctionIdentity.named(name);
  }

  /** The shared cluster, starting it on first use. */
  public static RealCluster cluster(ExtensionContext context) {
    return context
        .getRoot()
        .getStore(STORE)
        .getOrComputeIfAbsent(Shared.class, k -> new Shared(), Shared.class)
        .cluster();
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    cluster(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == RealCluster.class
        || type == RealNamespace.class
        || type == KubernetesClient.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    RealCluster cluster = cluster(context);
    if (type == RealCluster.class) {
      return cluster;
    }
    if (type == KubernetesClient.class) {
      return cluster.client();
    }
    // One namespace per test method (or per class for @BeforeAll/constructor parameters), closed
    // when that context ends.
    String hint =
        context.getTestMethod().map(m -> m.getName()).orElseGet(() -> context.getDisplayName());
    return context
        .getStore(STORE)
        .getOrComputeIfAbsent(
            RealNamespace.class, k -> RealNamespace.create(cluster, hint), RealNamespace.class);
  }
}
