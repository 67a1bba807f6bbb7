package io.gpufleet.testkit.aws;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.localstack.LocalStackContainer;
import org.testcontainers.utility.DockerImageName;
import software.amazon.awssdk.regions.Region;

/**
 * Starts one AWS emulator per test class for the adapter tier: LocalStack (Testcontainers) where a
 * Docker engine is available, otherwise {@code moto_server} as a child process ({@code
 * $MOTO_SERVER}, else the nearest {@code .venv/bin/moto_server} above the working directory). When
 * neither is there the tests fail, they are never skipped.
 *
 * <p>Use {@code @ExtendWith(AwsEmulatorExtension.class)} and take an {@link AwsEmulator} parameter,
 * or {@code @RegisterExtension static final AwsEmulatorExtension aws =
 * AwsEmulatorExtension.forServices("eks")} and call {@link #emulator()}. Services LocalStack only
 * has in its Pro image (EKS) make the extension use moto even where Docker is available.
 *
 * <p>{@code GPUFLEET_AWS_EMULATOR=moto|localstack|localstack-host} forces a choice; {@code
 * localstack-host} runs LocalStack from PyPI without Docker ({@link LocalStackHost}).
 */
public final class AwsEmulatorExtension
    implements BeforeAllCallback, AfterAllCallback, ParameterResolver {
  public static final String CHOICE_ENV = "GPUFLEET_AWS_EMULATOR";
  public static final String LOCALSTACK_IMAGE = "localstack/localstack:3";

  /** Services the LocalStack community image does not serve. */
  static final Set<String> LOCALSTACK_PRO_ONLY = Set.of("eks");

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(AwsEmulatorExtension.class);
  private static final String EMULATOR = "emulator";
  private static final String OWNER = "owner";

  private final Set<String> services;
  private volatile AwsEmulator emulator;

  public AwsEmulatorExtension() {
    this(Set.of());
  }

  private AwsEmulatorExtension(Set<String> services) {
    this.services = services;
  }

  /** An extension for tests that call these services (SDK service ids, e.g. "eks", "sqs"). */
  public static AwsEmulatorExtension forServices(String... services) {
    var ids = new TreeSet<String>();
    for (String s : services) {
      ids.add(s.toLowerCase(Locale.ROOT));
    }
    return new AwsEmulatorExtension(Set.copyOf(ids));
  }

  /** The emulator of the running test class. */
  public AwsEmulator emulator() {
    if (emulator == null) {
      throw new IllegalStateException(
          "no AWS emulator yet: register AwsEmulatorExtension on a static field or the class");
    }
    return emulator;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    var store = context.getStore(NAMESPACE);
    // A @Nested class finds its enclosing class's emulator through the parent store.
    var existing = store.get(EMULATOR, AwsEmulator.class);
    if (existing != null) {
      emulator = existing;
      return;
    }
    emulator =
        start(
            services,
            System.getenv(CHOICE_ENV),
            System.getenv(MotoServer.ENV),
            System.getenv(LocalStackHost.ENV),
            Path.of(""),
            () -> DockerClientFactory.instance().isDockerAvailable());
    store.put(EMULATOR, emulator);
    store.put(OWNER, context.getUniqueId());
  }

  @Override
  public void afterAll(ExtensionContext context) {
    var store = context.getStore(NAMESPACE);
    if (context.getUniqueId().equals(store.get(OWNER, String.class))) {
      var started = store.remove(EMULATOR, AwsEmulator.class);
      store.remove(OWNER);
      emulator = null;
      if (started != null) {
        started.close();
      }
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == AwsEmulator.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    var found = context.getStore(NAMESPACE).get(EMULATOR, AwsEmulator.class);
    return found != null ? found : emulator();
  }

  static AwsEmulator start(
      Set<String> services,
      String choice,
      String motoServerEnv,
      Path workingDirectory,
      BooleanSupplier dockerAvailable) {
    return start(services, choice, motoServerEnv, null, workingDirectory, dockerAvailable);
  }

  /** Chooses and starts an emulator; every way it can fail says what to do about it. */
  static AwsEmulator start(
      Set<String> services,
      String choice,
      String motoServerEnv,
      String localStackPythonEnv,
      Path workingDirectory,
      BooleanSupplier dockerAvailable) {
    String forced = choice == null ? "" : choice.trim().toLowerCase(Locale.ROOT);
    var moto = MotoServer.locate(motoServerEnv, workingDirectory);
    var proOnly = new TreeSet<>(services);
    proOnly.retainAll(LOCALSTACK_PRO_ONLY);
    switch (forced) {
      case "", "auto" -> {
        if (proOnly.isEmpty() && dockerAvailable.getAsBoolean()) {
          return startLocalStack();
        }
        if (moto.binary().isPresent()) {
          return MotoServer.start(moto.binary().get());
        }
        throw new IllegalStateException(
            (proOnly.isEmpty()
                    ? "No AWS emulator for the adapter tests: no Docker engine is available for"
                        + " LocalStack"
                    : "No AWS emulator for the adapter tests: "
                        + proOnly
                        + " needs moto (LocalStack has it only in its Pro image)")
                + " and moto_server was not found"
                + lookedAt(moto)
                + ". Run the test command from the README (it creates .venv with moto[server]),"
                + " or export "
                + MotoServer.ENV
                + "=/path/to/moto_server.");
      }
      case "moto" -> {
        return MotoServer.start(
            moto.binary()
                .orElseThrow(
                    () ->
                        new IllegalStateException(
                            CHOICE_ENV
                                + "=moto but moto_server was not found"
                                + lookedAt(moto)
                                + ". Run the test command from the README (it creates .venv with"
                                + " moto[server]), or export "
                                + MotoServer.ENV
                                + "=/path/to/moto_server.")));
      }
      case "localstack" -> {
        if (!proOnly.isEmpty()) {
          throw new IllegalStateException(
              CHOICE_ENV
                  + "=localstack but these tests call "
                  + proOnly
                  + ", which the LocalStack community image does not serve; use moto.");
        }
        if (!dockerAvailable.getAsBoolean()) {
          throw new IllegalStateException(
              CHOICE_ENV + "=localstack but no Docker engine is available to Testcontainers.");
        }
        return startLocalStack();
      }
      case "localstack-host" -> {
        if (!proOnly.isEmpty()) {
          throw new IllegalStateException(
              CHOICE_ENV
                  + "=localstack-host but these tests call "
                  + proOnly
                  + ", which LocalStack's community services do not include; use moto.");
        }
        var python = LocalStackHost.locate(localStackPythonEnv, workingDirectory);
        return LocalStackHost.start(
            python
                .binary()
                .orElseThrow(
                    () ->
                        new IllegalStateException(
                            CHOICE_ENV
                                + "=localstack-host but no Python with localstack-core was found"
                                + lookedAt(python)
                                + ". Create it with scripts/localstack-venv.sh (needs Python"
                                + " >= 3.13), or export "
                                + LocalStackHost.ENV
                                + "=/path/to/python.")));
      }
      default ->
          throw new IllegalStateException(
              CHOICE_ENV
                  + "='"
                  + choice
                  + "' is not one of auto, moto, localstack, localstack-host");
    }
  }

  private static String lookedAt(MotoServer.Search moto) {
    return " (looked at " + String.join(", ", moto.looked()) + ")";
  }

  private static AwsEmulator startLocalStack() {
    var container = new LocalStackContainer(DockerImageName.parse(LOCALSTACK_IMAGE));
    container.start();
    return new AwsEmulator(
        AwsEmulator.Kind.LOCALSTACK,
        container.getEndpoint(),
        Region.of(container.getRegion()),
        container.getAccessKey(),
        container.getSecretKey(),
        container::stop);
  }
}
